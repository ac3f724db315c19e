/** The Didit session API versions the client speaks; both take and answer the same fields. */
export const IDP_API_VERSIONS = ['v3', 'v2'] as const
export type IdpApiVersion = (typeof IDP_API_VERSIONS)[number]

/**
 * The session-creation path of a Didit API version: `POST /v3/session/` is
 * the current one in Didit's docs, `/v2/session/` the one before it.
 *
 * @example idpSessionPath('v3') // '/v3/session/'
 */
export const idpSessionPath = (version: IdpApiVersion) => {
  switch (version) {
    case 'v3':
      return '/v3/session/'
    case 'v2':
      return '/v2/session/'
    default:
      throw new Error(`unknown identity provider API version: ${String(version satisfies never)}`)
  }
}

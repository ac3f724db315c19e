import type { App } from '@agents/service-kit'

/**
 * Who may call a route (OpenAPI `security`): `{}` stands for "no
 * credential" beside the schemes that are optional.
 */
export const SECURITY: Record<
  | 'credential'
  | 'credentialOrChat'
  | 'optionalCredential'
  | 'login'
  | 'loginOrChat'
  | 'operator'
  | 'webhook'
  | 'none',
  Array<Record<string, string[]>>
> = {
  /** A venue credential (`vo_...` owner, `va_...` agent). */
  credential: [{ credential: [] }],
  /** A venue credential, or the chat page's session acting for the owner its wallet keys. */
  credentialOrChat: [{ credential: [] }, { chatSession: [] }],
  /** No credential, or one that binds the request to an owner or persona. */
  optionalCredential: [{}, { credential: [] }],
  /** A signed-in human's login token. */
  login: [{ login: [] }],
  /** A login token, or the chat page's session as the human `siwe:<wallet>`. */
  loginOrChat: [{ login: [] }, { chatSession: [] }],
  /** The operator: the token (scripts), or the console's session of an allow-listed wallet. */
  operator: [{ operator: [] }, { operatorSession: [] }],
  webhook: [{ webhookSignature: [] }],
  none: [],
}

/** The security schemes SECURITY names, in `components.securitySchemes`. */
export const registerSecuritySchemes = (app: Pick<App, 'openAPIRegistry'>) => {
  const { openAPIRegistry: registry } = app
  registry.registerComponent('securitySchemes', 'credential', {
    type: 'http',
    scheme: 'bearer',
    description:
      'A venue credential: `vo_<ownerId>_<secret>` (from intake) or `va_<endpointId>_<secret>` (from agent verify)',
  })
  registry.registerComponent('securitySchemes', 'login', {
    type: 'http',
    scheme: 'bearer',
    description: "A human's login token from a trusted issuer (or a SIWE token)",
  })
  registry.registerComponent('securitySchemes', 'operator', {
    type: 'http',
    scheme: 'bearer',
    description: 'VENUE_ADMIN_TOKEN',
  })
  registry.registerComponent('securitySchemes', 'operatorSession', {
    type: 'apiKey',
    in: 'cookie',
    name: 'venue_operator',
    description: 'a signed-in operator wallet (Sign-In with Ethereum), HttpOnly, SameSite=Strict',
  })
  registry.registerComponent('securitySchemes', 'webhookSignature', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Signature',
    description: 'hex HMAC-SHA256 of the raw body with the webhook secret, plus X-Timestamp',
  })
}

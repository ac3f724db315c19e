import { createHash, timingSafeEqual } from 'node:crypto'
import { ApiError, bearerToken } from '@agents/service-kit'
import type { Context, MiddlewareHandler } from 'hono'
import type { VenueDatabase } from '../db/open.ts'
import { type Actor, authenticate } from './actors.ts'

/**
 * Who a request speaks for, resolved once by the route's middleware before
 * the body is read, and read by the handler with `credentialOf(c)`,
 * `humanOf(c)` or `optionalCredentialOf(c)`. Logic functions then take the
 * resolved actor, never the header.
 *
 * Kept beside the request rather than in Hono's variables so the type stays
 * the venue's own (service-kit's context knows nothing of owners).
 */
const resolved = new WeakMap<Context, Actor | undefined>()
const humans = new WeakMap<Context, string>()

const MISSING_RESOLUTION = 'route reads an actor its middleware never resolved'

/**
 * The header holding the venue credential: `Authorization: Bearer`, or
 * `X-Venue-Credential` on a paid retry whose `Authorization` carries an MPP
 * payment (`Authorization: Payment ...`), which leaves no room for a bearer.
 */
export const VENUE_CREDENTIAL_HEADER = 'x-venue-credential'

const credentialHeader = (c: Context) => {
  const authorization = c.req.header('authorization')
  if (bearerToken(authorization)) return authorization
  const alternate = c.req.header(VENUE_CREDENTIAL_HEADER)
  if (alternate !== undefined) return `Bearer ${alternate}`
  // A payment is not a credential: without X-Venue-Credential the request has none.
  return authorization?.startsWith('Payment ') ? undefined : authorization
}

/**
 * A venue credential (`vo_...` owner, `va_...` active agent) is required:
 * none 401 `credential required: <what>`, not a live one 403.
 *
 * @example jsonRoute(app, route, handler, { middleware: [requireCredential(deps, 'posting for a persona')] })
 */
export const requireCredential = (
  deps: { database: VenueDatabase },
  what: string,
): MiddlewareHandler =>
  async function credentialRequired(c, next) {
    resolved.set(c, await authenticate(deps.database, credentialHeader(c), what))
    await next()
  }

/**
 * A venue credential is optional (the route acts anonymously without one),
 * but one that is sent must be live: 403 otherwise, never silently ignored.
 */
export const acceptCredential = (
  deps: { database: VenueDatabase },
  what: string,
): MiddlewareHandler =>
  async function credentialAccepted(c, next) {
    const header = credentialHeader(c)
    resolved.set(
      c,
      header === undefined ? undefined : await authenticate(deps.database, header, what),
    )
    await next()
  }

type LoginVerifier = {
  verify: (token: string) => Promise<{ ok: true; subject: string } | { ok: false; reason: string }>
}

/**
 * A signed-in human (`Authorization: Bearer <login token>` from a trusted
 * issuer, or a SIWE token): otherwise 401 `auth verification failed` with
 * the reason.
 */
export const requireHuman = (deps: { login: LoginVerifier }): MiddlewareHandler =>
  async function humanRequired(c, next) {
    humans.set(c, await signedInHuman(deps, bearerToken(c.req.header('authorization'))))
    await next()
  }

/** The subject behind a login token, or a 401 `auth verification failed` with the reason. */
export const signedInHuman = async (deps: { login: LoginVerifier }, token: string | undefined) => {
  if (!token)
    throw new ApiError(401, 'auth verification failed', { reason: 'login token required' })
  const result = await deps.login.verify(token)
  if (!result.ok) throw new ApiError(401, 'auth verification failed', { reason: result.reason })
  return result.subject
}

const digest = (value: string) => createHash('sha256').update(value).digest()

/** The owner or agent a `requireCredential` route speaks for. */
export const credentialOf = (c: Context): Actor => {
  const actor = resolved.get(c)
  if (!actor) throw new Error(MISSING_RESOLUTION)
  return actor
}

/** The owner or agent an `acceptCredential` route speaks for, if a credential was sent. */
export const optionalCredentialOf = (c: Context): Actor | undefined => {
  if (!resolved.has(c)) throw new Error(MISSING_RESOLUTION)
  return resolved.get(c)
}

/** The login subject a `requireHuman` route speaks for. */
export const humanOf = (c: Context): string => {
  const subject = humans.get(c)
  if (subject === undefined) throw new Error(MISSING_RESOLUTION)
  return subject
}

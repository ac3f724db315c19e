import { ApiError, bearerToken } from '@agents/service-kit'
import type { Context } from 'hono'
import type { VenueDatabase } from '../db/open.ts'
import type { VenueContext, VenueMiddleware, VenueVariables } from '../venue-env.ts'
import { type Actor, authenticate } from './actors.ts'
import { type ChatSessionDeps, chatSessionOwner, chatSessionSubject } from './chat-actor.ts'

/**
 * Who a request speaks for, resolved once by the route's middleware before
 * the body is read (`c.set('actor')`, `c.set('human')`), and read by the
 * handler with `credentialOf(c)`, `humanOf(c)` or `optionalCredentialOf(c)`.
 * Logic functions then take the resolved actor, never the header.
 */
export type CredentialVariables = Pick<VenueVariables, 'actor'>
/** What `requireHuman` sets: the login subject. */
export type HumanVariables = Pick<VenueVariables, 'human'>

const MISSING_RESOLUTION = 'route reads an actor its middleware never resolved'

/**
 * The header holding the venue credential: `Authorization: Bearer`, or
 * `X-Venue-Credential` on a paid retry whose `Authorization` carries an MPP
 * payment (`Authorization: Payment ...`), which leaves no room for a bearer.
 */
export const VENUE_CREDENTIAL_HEADER = 'x-venue-credential'

/** The credential a request sends, as an `Authorization` value; undefined when it sends none. */
export const credentialHeader = (c: Context) => {
  const authorization = c.req.header('authorization')
  if (bearerToken(authorization)) return authorization
  const alternate = c.req.header(VENUE_CREDENTIAL_HEADER)
  if (alternate !== undefined) return `Bearer ${alternate}`
  // A payment is not a credential: without X-Venue-Credential the request has none.
  return authorization?.startsWith('Payment ') ? undefined : authorization
}

/**
 * Whether a route also takes the chat page's session cookie as the owner
 * its wallet keys. Off by default: only the routes a human of the chat page
 * uses opt in (a couple's turns and withdrawal, intro consent, invites), so
 * paid routes and agent routes keep answering to a bearer credential only.
 */
export type CredentialOptions = { chatSession?: boolean }

type CredentialDeps = { database: VenueDatabase; humanChat?: ChatSessionDeps['humanChat'] }

/**
 * The actor of a request: its bearer credential when one is sent (a bearer
 * always wins), else, on a route that opted in, the owner of the signed-in
 * chat wallet; undefined when neither is there.
 */
const resolveActor = async (
  deps: CredentialDeps,
  c: Context,
  what: string,
  { chatSession = false }: CredentialOptions,
): Promise<Actor | undefined> => {
  const header = credentialHeader(c)
  if (header !== undefined) return authenticate(deps.database, header, what)
  if (!chatSession) return undefined
  if (!deps.humanChat) throw new Error('a chat-session route needs deps.humanChat')
  return chatSessionOwner({ database: deps.database, humanChat: deps.humanChat }, c)
}

/**
 * A venue credential (`vo_...` owner, `va_...` active agent) is required:
 * none 401 `credential required: <what>`, not a live one 403. With
 * `{ chatSession: true }` a signed-in chat wallet counts as its owner's.
 *
 * @example jsonRoute(app, route, handler, { middleware: [requireCredential(deps, 'posting for a persona')] })
 */
export const requireCredential = (
  deps: CredentialDeps,
  what: string,
  options: CredentialOptions = {},
): VenueMiddleware =>
  async function credentialRequired(c, next) {
    c.set(
      'actor',
      (await resolveActor(deps, c, what, options)) ??
        (await authenticate(deps.database, undefined, what)),
    )
    await next()
  }

/**
 * A venue credential is optional (the route acts anonymously without one),
 * but one that is sent must be live: 403 otherwise, never silently ignored.
 */
export const acceptCredential = (
  deps: CredentialDeps,
  what: string,
  options: CredentialOptions = {},
): VenueMiddleware =>
  async function credentialAccepted(c, next) {
    c.set('actor', (await resolveActor(deps, c, what, options)) ?? null)
    await next()
  }

type LoginVerifier = {
  verify: (token: string) => Promise<{ ok: true; subject: string } | { ok: false; reason: string }>
}

/**
 * A signed-in human (`Authorization: Bearer <login token>` from a trusted
 * issuer, or a SIWE token): otherwise 401 `auth verification failed` with
 * the reason. With `{ chatSession: true }` and no bearer, a signed-in chat
 * wallet is the human `siwe:<address>`, the subject its SIWE login token has.
 */
export const requireHuman = (
  deps: {
    login: LoginVerifier
    database?: VenueDatabase
    humanChat?: ChatSessionDeps['humanChat']
  },
  { chatSession = false }: CredentialOptions = {},
): VenueMiddleware =>
  async function humanRequired(c, next) {
    const token = bearerToken(c.req.header('authorization'))
    const fromChat =
      !token && chatSession && deps.database && deps.humanChat
        ? await chatSessionSubject({ database: deps.database, humanChat: deps.humanChat }, c)
        : undefined
    c.set('human', fromChat ?? (await signedInHuman(deps, token)))
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

/** The owner or agent a `requireCredential` route speaks for. */
export const credentialOf = (c: VenueContext): Actor => {
  const actor = c.get('actor')
  if (!actor) throw new Error(MISSING_RESOLUTION)
  return actor
}

/** The owner or agent an `acceptCredential` route speaks for, if a credential was sent. */
export const optionalCredentialOf = (c: VenueContext): Actor | undefined => {
  const actor = c.get('actor')
  if (actor === undefined) throw new Error(MISSING_RESOLUTION)
  return actor ?? undefined
}

/** The login subject a `requireHuman` route speaks for. */
export const humanOf = (c: VenueContext): string => {
  const subject = c.get('human')
  if (subject === undefined) throw new Error(MISSING_RESOLUTION)
  return subject
}

import type { VenueLimitName } from './limit-defaults.ts'

/**
 * What a request may present that the venue knows a client by, in the order
 * the route reads them: `bearer` (`Authorization: Bearer`, or
 * `X-Venue-Credential` beside an MPP payment: a venue credential, a login
 * token or the operator's token), `chat` (the chat page's `venue_chat`
 * session cookie), `operator` (the console's `venue_operator` cookie).
 */
export type Presented = 'bearer' | 'chat' | 'operator'

/**
 * A route's limit: `limit` when the request presents one of `accepts`,
 * `anonymous` (when given) when it presents none. A route counts only what
 * it checks: anything else presented is ignored, so a made-up credential on
 * a public route cannot buy a fresh bucket.
 */
export type RouteLimit = {
  limit: VenueLimitName | undefined
  anonymous?: VenueLimitName
  accepts: readonly Presented[]
}

const read = (...accepts: Presented[]): RouteLimit => ({ limit: 'read', accepts })
const write = (...accepts: Presented[]): RouteLimit => ({
  limit: 'write',
  anonymous: 'anonymous-write',
  accepts,
})
const outbound = (...accepts: Presented[]): RouteLimit => ({ limit: 'outbound', accepts })
const challenge = (...accepts: Presented[]): RouteLimit => ({ limit: 'challenge', accepts })
const signin: RouteLimit = { limit: 'signin', accepts: [] }
const unlimited: RouteLimit = { limit: undefined, accepts: [] }
const operator = ['bearer', 'operator'] as const
const ownerOrChat = ['bearer', 'chat'] as const

/**
 * Every operation of the venue (method and Hono path pattern) and the limit
 * it counts against; a test keeps this table and /openapi.json equal. Not
 * listed (unknown routes, 404s): GET reads, anything else is a write.
 */
export const ROUTE_LIMITS: Readonly<Record<string, RouteLimit>> = {
  // Probes and scrapes are reads: /health asks the database, the facilitator and the chains, so
  // an unmetered flood of it would cost what any other flood does. /mcp counts each message
  // itself (as its tool's route).
  'GET /health': read(),
  'GET /metrics': read(),
  'POST /mcp': unlimited,
  'GET /mcp': unlimited,
  'DELETE /mcp': unlimited,

  'GET /openapi.json': read(),
  'GET /': read(),
  'GET /skill': read(),
  'GET /llms.txt': read(),
  'GET /llms-full.txt': read(),
  'GET /chat': read(),
  'GET /claim': read(),
  'GET /identity/done': read(),
  'GET /.well-known/jwks.json': read(),
  'GET /api/boards/:board': read(),
  'GET /api/floor': read(),
  'GET /api/escalations/:coupleId/status': read(),
  'GET /api/couples/:id': read(...ownerOrChat),
  'GET /api/couples/:id/reveal': read(...ownerOrChat),
  'GET /api/escalations/:coupleId/invite': read(...ownerOrChat),
  'GET /api/chat/me': read('chat'),
  'GET /api/chat/messages': read('chat'),
  'GET /admin': read(...operator),
  'GET /admin.json': read(...operator),
  'GET /admin/queue': read(...operator),
  'GET /admin/trends': read(...operator),
  'GET /admin/orders': read(...operator),
  'GET /admin/orders/totals': read(...operator),

  'POST /api/intake/agent': write('bearer'),
  'POST /api/intake/agent/verify': write(),
  'POST /api/report': write('bearer'),
  'POST /api/couples/:id/withdraw': write(...ownerOrChat),
  'POST /api/couples/:id/intro-consent': write(...ownerOrChat),
  'POST /api/couples/:id/reveal-consent': write(...ownerOrChat),
  'POST /api/escalations/:coupleId/invite': write(...ownerOrChat),
  'DELETE /api/owners/:ownerId': write('bearer', 'chat', 'operator'),
  'POST /api/chat/attest': write('chat'),
  'POST /api/chat/draft': write('chat'),
  'POST /api/chat/session/end': write('chat'),
  'POST /api/operator/session/end': write('operator'),
  'POST /admin/actions/beat': write(...operator),
  'POST /admin/actions/settings': write(...operator),
  'POST /admin/actions/broker': write(...operator),
  'POST /admin/actions/review': write(...operator),
  'POST /admin/actions/moderate': write(...operator),
  'POST /admin/actions/credit': write(...operator),
  // The HMAC is its credential (checked on the raw bytes): the provider's deliveries
  // count as writes of its address, never at the anonymous rate.
  'POST /api/identity/webhook/idp': { limit: 'write', accepts: [] },

  // The chaperone or the safety check (moderation when configured), the matchmaker's
  // model, the identity provider's session.
  'POST /api/personas': outbound('bearer'),
  'POST /api/boards/:board': outbound('bearer'),
  'POST /api/couples/:id/turns': outbound(...ownerOrChat),
  'POST /api/chat/ask': outbound('chat', 'bearer'),
  'POST /api/identity/session': outbound('bearer'),

  'POST /api/intake/heart-file': challenge(),
  'POST /api/premium/compatibility-report': challenge('bearer'),
  'POST /api/featured/post': challenge('bearer'),
  'POST /api/chat/topup': challenge('chat'),
  'POST /api/chat/submit-doc': challenge('chat'),

  'POST /api/chat/session/nonce': signin,
  'POST /api/chat/session': signin,
  'POST /api/operator/session/nonce': signin,
  'POST /api/operator/session': signin,
  // The human's login token rides in the body: the claim is a sign-in.
  'POST /api/escalations/claim': signin,
}

const READ_BY_DEFAULT = read()
const WRITE_BY_DEFAULT = write()

/** The table's entry for a route, or the default (GET/HEAD read, anything else a write). */
export const routeLimitOf = ({ method, path }: { method: string; path: string }): RouteLimit =>
  ROUTE_LIMITS[`${method} ${path}`] ??
  (method === 'GET' || method === 'HEAD' ? READ_BY_DEFAULT : WRITE_BY_DEFAULT)

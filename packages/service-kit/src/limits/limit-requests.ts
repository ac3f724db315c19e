import { createHash } from 'node:crypto'
import type { Context, MiddlewareHandler } from 'hono'
import { matchedRoutes } from 'hono/route'
import type { AppEnv } from '../app-type.ts'
import { ApiError, errorBody } from '../errors.ts'
import { clientAddress, type ForwardedTrust } from '../http/client-address.ts'
import { clientGroup } from '../http/client-group.ts'
import type { Client } from './client.ts'
import type { LimitDecision, Limits } from './limits.ts'

/** The route a request matched (its pattern, `/v1/offers/:id`), or `unmatched`. */
export type MatchedRoute = { method: string; path: string }

export type LimitRequestsParameters<name extends string> = {
  limits: Limits<name>
  /**
   * The limit a route counts against; undefined: not limited (`/mcp`,
   * which limits each message itself). `credential`
   * says whether the request presents one (a write may count apart without:
   * `anonymous-write`). Also asked for every documented route, both ways, to
   * document its 429.
   */
  classify(route: MatchedRoute, request: { credential: boolean }): name | undefined
  /** The credential, session or agent a request presents, as a short stable string; undefined: count by address. */
  credentialOf?: (c: Context<AppEnv>) => string | undefined
  /**
   * Counted per address each time a presented credential is refused (401 or
   * 403), and checked before such a request runs: guessing credentials costs
   * what signing in costs, and a made-up credential cannot buy a fresh bucket.
   */
  credentialFailures?: name
  /**
   * The answers that mean the presented credential was not a real one
   * (default 401 and 403). A capability in the path, such as the rail's
   * match id, is answered 404 when made up: list 404 to count those.
   */
  credentialFailureStatuses?: readonly number[]
  trustForwardedFor?: ForwardedTrust
  /** Told of every refusal, for `/metrics`. */
  onLimited?: (name: string) => void
}

/** A credential's key: a hash, so the counter table never holds a secret. */
export const credentialKey = (kind: string, secret: string) =>
  `${kind}:${createHash('sha256').update(secret).digest('base64url').slice(0, 22)}`

/** `RateLimit-Policy` and `RateLimit` (IETF httpapi draft -10/-11), plus `Retry-After` on a refusal. */
export const limitHeaders = (decision: LimitDecision): Record<string, string> => ({
  'RateLimit-Policy': `"${decision.name}";q=${decision.policy.points};w=${decision.policy.windowSeconds}`,
  RateLimit: `"${decision.name}";r=${decision.remaining};t=${decision.resetSeconds}`,
  ...(decision.allowed ? {} : { 'Retry-After': String(decision.resetSeconds) }),
})

/** The 429 every limit answers with, in the service's error shape. */
const refusalMessage = (decision: LimitDecision) =>
  `too many requests: the ${decision.name} limit is ${decision.policy.points} per ${decision.policy.windowSeconds} s; retry in ${decision.resetSeconds} s`

export class TooManyRequests extends ApiError {
  constructor(decision: LimitDecision) {
    super(
      429,
      refusalMessage(decision),
      { limit: decision.name, retryAfter: decision.resetSeconds },
      limitHeaders(decision),
    )
  }
}

/**
 * The 429 as a response, built without an Error: a flood is answered with
 * these by the thousand a second, and capturing a stack trace for each was
 * 8.5 % of a flooded service's CPU (bench/README.md, "Abuse").
 */
export const tooManyRequestsResponse = (decision: LimitDecision) =>
  new Response(
    JSON.stringify(
      errorBody(refusalMessage(decision), {
        limit: decision.name,
        retryAfter: decision.resetSeconds,
      }),
    ),
    {
      status: 429,
      headers: { 'content-type': 'application/json', ...limitHeaders(decision) },
    },
  )

export const matchedRoute = (c: Context): MatchedRoute => {
  // Middleware is registered for ALL methods; the last matched handler with
  // a method of its own is the route that will answer.
  const matched = matchedRoutes(c)
  for (let index = matched.length - 1; index >= 0; index--) {
    const route = matched[index]!
    if (route.method !== 'ALL') return { method: route.method, path: route.path }
  }
  return { method: c.req.method, path: 'unmatched' }
}

/** The client a request counts for (see `Client`). */
export const clientOf = (
  c: Context<AppEnv>,
  {
    credentialOf,
    trustForwardedFor,
  }: Pick<LimitRequestsParameters<string>, 'credentialOf' | 'trustForwardedFor'>,
): Client => {
  const address = clientGroup(clientAddress(c, { trustForwardedFor }) ?? 'unknown')
  const credential = credentialOf?.(c)
  return credential === undefined
    ? { key: `ip:${address}`, address, credential: false }
    : { key: credential, address, credential: true }
}

/**
 * Counts every request against its route's class for its client; over the
 * limit, answers 429 before the route runs. Every answer carries the
 * RateLimit headers of the class it counted against; `c.var.client` and
 * `c.var.takeLimit` let a route or the MCP endpoint count more.
 */
export const limitRequests = <name extends string>({
  limits,
  classify,
  credentialOf,
  credentialFailures,
  credentialFailureStatuses = [401, 403],
  trustForwardedFor,
  onLimited,
}: LimitRequestsParameters<name>): MiddlewareHandler<AppEnv> =>
  async function limitRequests(c, next) {
    const client = clientOf(c, { credentialOf, trustForwardedFor })
    const addressKey = `ip:${client.address}`
    c.set('client', client)
    c.set('takeLimit', async (name, cost) => {
      const decision = await limits.take(name as name, client.key, cost)
      if (!decision.allowed) onLimited?.(name)
      return decision
    })
    const name = classify(matchedRoute(c), { credential: client.credential })
    if (name === undefined) return next()
    if (client.credential && credentialFailures !== undefined) {
      const failures = await limits.peek(credentialFailures, addressKey)
      if (!failures.allowed) {
        onLimited?.(credentialFailures)
        return tooManyRequestsResponse({ ...failures, allowed: false })
      }
    }
    const decision = await limits.take(name, client.key)
    if (!decision.allowed) {
      onLimited?.(name)
      return tooManyRequestsResponse(decision)
    }
    await next()
    if (client.credential && credentialFailures !== undefined) {
      if (credentialFailureStatuses.includes(c.res.status))
        await limits.take(credentialFailures, addressKey)
    }
    // A route's own refusal (a newly mined salt over its limit) keeps its own headers.
    if (!c.res.headers.has('RateLimit')) setHeaders(c, limitHeaders(decision))
  }

/** Sets headers on the answer, copying it first when it came with immutable headers (a fetch Response). */
export const setHeaders = (c: Context, headers: Record<string, string>) => {
  for (const [header, value] of Object.entries(headers)) {
    try {
      c.res.headers.set(header, value)
    } catch {
      c.res = new Response(c.res.body, c.res)
      c.res.headers.set(header, value)
    }
  }
}

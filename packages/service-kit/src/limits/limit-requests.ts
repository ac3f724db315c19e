import { createHash } from 'node:crypto'
import type { Context, MiddlewareHandler } from 'hono'
import { matchedRoutes } from 'hono/route'
import type { AppEnv } from '../app-type.ts'
import { ApiError, errorBody } from '../errors.ts'
import { clientAddress, type ForwardedTrust } from '../http/client-address.ts'
import { clientGroup } from '../http/client-group.ts'
import type { Client } from './client.ts'
import type { LimitDecision, Limits } from './limits.ts'
import {
  type DeclaredRoutes,
  type LimitDeclaration,
  type MatchedRoute,
  type RouteLimits,
  routeLimitOf,
} from './route-limit.ts'

/** Reads one credential a route counts from a request: a short stable key (`credentialKey`), or undefined when the request presents none. */
export type CredentialReader = (c: Context<AppEnv>) => string | undefined

export type LimitRequestsParameters<name extends string> = {
  limits: Limits<name>
  /**
   * The limit of a request whose route declared none: unknown routes (404,
   * 405) and the kit's own documents and probes (`/health`,
   * `/openapi.json`, `/metrics`). GET and HEAD count as `read`, anything
   * else as `write` (`read` when absent).
   */
  unlisted: { read: LimitDeclaration; write?: LimitDeclaration }
  /**
   * What each credential a route may count reads from a request, by the
   * OpenAPI security scheme's name (or a route's `capability`). A route
   * counts the first one its declaration lists that the request presents;
   * a scheme without a reader (an HMAC, the metrics token) counts nothing.
   */
  credentials?: Readonly<Record<string, CredentialReader>>
  /**
   * Counted per address each time a presented credential is refused (401 or
   * 403), and checked before such a request runs: guessing credentials costs
   * what signing in costs, and a made-up credential cannot buy a fresh bucket.
   */
  credentialFailures?: NoInfer<name>
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

const NO_CREDENTIALS: readonly string[] = []

/**
 * What limits a request of `route`: its declared `limit`, else the
 * `unlisted` class; it counts the credentials its declaration lists
 * (none on a route nobody documented: a 404).
 */
export const limitOfRoute = (
  routes: DeclaredRoutes,
  unlisted: LimitRequestsParameters<string>['unlisted'],
  route: MatchedRoute,
): RouteLimits => {
  const declared = routes.of(route)
  if (declared?.counted) return declared.counted
  const read = route.method === 'GET' || route.method === 'HEAD'
  return {
    limit: routeLimitOf(read ? unlisted.read : (unlisted.write ?? unlisted.read)),
    credentials: declared?.credentials ?? NO_CREDENTIALS,
  }
}

/** The class a request of the route counts against, with or without a credential it counts. */
export const classOf = ({ limit }: RouteLimits, credential: boolean) =>
  limit && (credential ? limit.name : (limit.anonymous ?? limit.name))

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

/** The client a request counts for (see `Client`): the first credential its route counts that it presents, else its address group. */
export const clientOf = (
  c: Context<AppEnv>,
  {
    credentials,
    readers = {},
    trustForwardedFor,
  }: {
    credentials: readonly string[]
    readers?: Readonly<Record<string, CredentialReader>> | undefined
    trustForwardedFor?: ForwardedTrust | undefined
  },
): Client => {
  const address = clientGroup(clientAddress(c, { trustForwardedFor }) ?? 'unknown')
  let credential: string | undefined
  let last: CredentialReader | undefined
  for (const scheme of credentials) {
    const read = readers[scheme]
    // Schemes read alike (three bearer schemes) are read once.
    if (read === undefined || read === last) continue
    last = read
    credential = read(c)
    if (credential !== undefined) break
  }
  return credential === undefined
    ? { key: `ip:${address}`, address, credential: false }
    : { key: credential, address, credential: true }
}

/**
 * Counts every request against its route's declared class (`limit`) for its
 * client; over the limit, answers 429 before the route runs. The decision
 * is left in `c.var.limit`, for `recordRequest` to write its RateLimit
 * headers on the answer; `c.var.client` and `c.var.takeLimit` let a route
 * or the MCP endpoint count more.
 */
export const limitRequests = <name extends string>(
  {
    limits,
    unlisted,
    credentials: readers,
    credentialFailures,
    credentialFailureStatuses = [401, 403],
    trustForwardedFor,
    onLimited,
  }: LimitRequestsParameters<name>,
  routes: DeclaredRoutes,
): MiddlewareHandler<AppEnv> =>
  async function limitRequests(c, next) {
    const route = limitOfRoute(routes, unlisted, matchedRoute(c))
    const client = clientOf(c, { credentials: route.credentials, readers, trustForwardedFor })
    const addressKey = `ip:${client.address}`
    c.set('client', client)
    c.set('takeLimit', async (name, cost) => {
      const decision = await limits.take(name as name, client.key, cost)
      if (!decision.allowed) onLimited?.(name)
      return decision
    })
    const name = classOf(route, client.credential) as name | undefined
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
    c.set('limit', decision)
    await next()
    if (client.credential && credentialFailures !== undefined) {
      if (credentialFailureStatuses.includes(c.res.status))
        await limits.take(credentialFailures, addressKey)
    }
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

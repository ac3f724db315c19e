import { limitHeaders } from './limits/limit-requests.ts'
import type { LimitDecision } from './limits/limits.ts'
import type { MatchedRoute } from './limits/route-limit.ts'
import type { Logger } from './logger.ts'
import type { Metrics } from './metrics/metrics.ts'

/** One answered request, as recorded. */
export type RequestRecord = {
  /** The request's method and path, for the log line. */
  method: string
  path: string
  /** The route it matched (`matchedRoute`), for `/metrics`: patterns, not paths, keep the labels few. */
  route: MatchedRoute
  status: number
  /** `performance.now()` when the request arrived. */
  started: number
  /** The request limit it counted against, if any: its RateLimit headers go on the answer. */
  limit?: LimitDecision | undefined
}

/** The answer's headers, before they are written (a Response's `Headers`, or a plain record). */
export type AnswerHeaders = { has(name: string): boolean; set(name: string, value: string): void }

/**
 * What every answered request leaves behind: the RateLimit headers of the
 * limit it counted against (unless the answer set its own: a route's own
 * refusal), its count and duration in `/metrics`, and its log line. The
 * app's middleware calls it, and so does anything that answers beside the
 * app (the router's hot path), so the two cannot drift apart.
 */
export const recordRequest = (
  { logger, metrics }: { logger: Logger; metrics?: Metrics | undefined },
  { method, path, route, status, started, limit }: RequestRecord,
  headers: AnswerHeaders,
) => {
  if (limit && !headers.has('RateLimit'))
    for (const [header, value] of Object.entries(limitHeaders(limit))) headers.set(header, value)
  const ms = performance.now() - started
  if (metrics) {
    metrics.requests.inc({ method: route.method, route: route.path, status })
    metrics.duration.observe({ method: route.method, route: route.path }, ms / 1000)
  }
  // A flood is refused by the thousand a second: its 429s are counted in
  // /metrics (rate_limited_total) and logged only at debug, so the log
  // cannot become the flood's amplifier.
  logger[status === 429 ? 'debug' : 'info'](
    { method, path, status, ms: Math.round(ms * 10) / 10 },
    'request',
  )
}

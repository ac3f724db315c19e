import type { MatchedRoute } from '@agents/service-kit'
import type { RouterLimitName } from './limit-defaults.ts'

// /mcp counts each message itself. /health and /metrics are reads like the
// rest: a probe every few seconds is far below the limit, and a flood of
// either must not run unmetered.
const UNLIMITED = new Set(['/mcp'])

/**
 * The limit a request counts against: every operation only reads the
 * matrix and computes (nothing is written, nothing leaves the host), so
 * all of them, the documents and unknown routes are `read`. What differs
 * in cost, mining, is charged apart (`chargeMining`).
 */
export const classifyRoute = ({ path }: MatchedRoute): RouterLimitName | undefined =>
  UNLIMITED.has(path) ? undefined : 'read'

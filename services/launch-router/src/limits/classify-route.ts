import type { MatchedRoute } from '@agents/service-kit'
import type { RouterLimitName } from './limit-defaults.ts'

// Operators' probes and scrapes, and /mcp, which counts each message itself.
const UNLIMITED = new Set(['/health', '/metrics', '/mcp'])

/**
 * The limit a request counts against: every operation only reads the
 * matrix and computes (nothing is written, nothing leaves the host), so
 * all of them, the documents and unknown routes are `read`. What differs
 * in cost, mining, is charged apart (`chargeMining`).
 */
export const classifyRoute = ({ path }: MatchedRoute): RouterLimitName | undefined =>
  UNLIMITED.has(path) ? undefined : 'read'

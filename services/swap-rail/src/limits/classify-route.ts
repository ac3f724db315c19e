import type { MatchedRoute } from '@agents/service-kit'
import type { RailLimitName } from './limit-defaults.ts'

// Not limited per request: /mcp, which counts each JSON-RPC message as its
// HTTP route would (mountMcp). /health is a read: each one asks the
// database, the facilitator and the chains, so a flood of it must be refused.
const UNLIMITED = new Set(['/mcp'])

/**
 * The limit a request counts against, from the route it matched: every
 * route has one except `/mcp` (counted per message). A request that
 * matched no route (a 404, a 405) counts as a read.
 */
export const classifyRoute = ({ method, path }: MatchedRoute): RailLimitName | undefined => {
  if (UNLIMITED.has(path)) return undefined
  if (method === 'POST') {
    if (path === '/v1/offers' || path === '/v1/intents') return 'anonymous-write'
    if (path === '/v1/offers/:id/cancel') return 'write'
    if (path === '/v1/matches/:id/pay' || path === '/v1/pay') return 'challenge'
  }
  return 'read'
}

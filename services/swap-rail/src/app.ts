import { paymentsHealth } from '@agents/payments'
import {
  type App,
  createApp,
  type LimitRequestsParameters,
  type Metrics,
  mountMcp,
} from '@agents/service-kit'
import type { SwapDeps } from './deps.ts'
import { registerDiscoveryRoutes } from './discovery/discovery-routes.ts'
import { registerIntentRoutes } from './intents/intent-routes.ts'
import { registerMatchRoutes } from './matches/match-routes.ts'
import { swapRailTools } from './mcp-tools.ts'
import { registerOfferRoutes } from './offers/offer-routes.ts'

export const SERVICE_NAME = 'swap-rail'
export const API_VERSION = '0.2.0'

export type BuildAppOptions = {
  maxBodyBytes?: number
  /** Request limits per client, each route's class declared with it (`createRequestLimits`); unset: none (benches). */
  requestLimits?: LimitRequestsParameters<string> | undefined
  /** Counts requests and serves `GET /metrics` to `metricsToken`. */
  metrics?: Metrics | undefined
  metricsToken?: string | undefined
}

/** The swap rail's HTTP app: offers, intents, matches and payment, discovery, MCP. */
export const buildApp = (
  deps: SwapDeps,
  { maxBodyBytes, requestLimits, metrics, metricsToken }: BuildAppOptions = {},
): App => {
  const app = createApp({
    name: SERVICE_NAME,
    version: API_VERSION,
    logger: deps.logger,
    description:
      'Agent-to-agent inference swap rail: sellers post capacity, buyers post intents, one USDC payment to a split, a short-lived grant to call the seller.',
    ...(maxBodyBytes ? { maxBodyBytes } : {}),
    ...(requestLimits ? { limits: requestLimits } : {}),
    ...(metrics ? { metrics, metricsToken } : {}),
    health: async (c) => {
      try {
        await deps.database.probe()
      } catch {
        return c.json({ status: 'degraded', service: SERVICE_NAME, database: 'unavailable' }, 503)
      }
      // The facilitator and the chains degrade the service, they do not take it down.
      const payments = await paymentsHealth(deps.payments)
      return c.json({
        status: payments.status,
        service: SERVICE_NAME,
        version: API_VERSION,
        database: 'ok',
        payments,
      })
    },
  })
  registerOfferRoutes(app, deps)
  registerIntentRoutes(app, deps)
  registerMatchRoutes(app, deps)
  registerDiscoveryRoutes(app, deps)
  mountMcp(app, {
    name: SERVICE_NAME,
    version: API_VERSION,
    tools: swapRailTools(deps),
    ...(requestLimits ? { limits: { other: 'read' } } : {}),
  })
  return app
}

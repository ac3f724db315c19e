import { PaymentsHealthSchema, paymentsHealth } from '@agents/payments'
import {
  createApp,
  document,
  errors,
  json,
  type LimitRequestsParameters,
  mountMcp,
  pageNonce,
} from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import type { MiddlewareHandler } from 'hono'
import { registerAdminRoutes } from './admin/admin-routes.ts'
import { registerAdmissionRoutes } from './admission/admission-routes.ts'
import { registerAgentRoutes } from './agents/agent-routes.ts'
import { registerChatAskRoutes } from './ask-matchmaker/ask-routes.ts'
import { registerDraftRoutes } from './ask-matchmaker/draft-routes.ts'
import { registerBoardRoutes } from './boards/board-routes.ts'
import { registerChatPageRoutes } from './chat/chat-page-routes.ts'
import { registerCompatibilityRoutes } from './compatibility/compatibility-routes.ts'
import { registerConsoleRoutes } from './console/console-routes.ts'
import { registerCoupleRoutes } from './couples/couple-routes.ts'
import type { VenueDeps } from './deps.ts'
import { registerErasureRoutes } from './erasure/erasure-routes.ts'
import { registerEscalationRoutes } from './escalation/escalation-routes.ts'
import { registerFeaturedRoutes } from './featured/featured-routes.ts'
import { registerFloorRoutes } from './floor/floor-routes.ts'
import { llmsFullTxt, llmsTxt, skillMd } from './front/documents.ts'
import { homePage } from './front/home-page.ts'
import { venueStats } from './front/venue-stats.ts'
import { registerIdentityRoutes } from './identity/identity-routes.ts'
import { registerIntakeRoutes } from './intake/intake-routes.ts'
import { registerSubmitDocRoutes } from './intake/submit-doc-routes.ts'
import { LIMIT, type VenueLimitName } from './limits/limit-defaults.ts'
import { venueTools } from './mcp-tools.ts'
import { registerJwksRoute } from './notify/jwks-routes.ts'
import { registerSecuritySchemes, SECURITY } from './openapi.ts'
import { registerChatTopupRoutes } from './orders/chat-topup-routes.ts'
import { registerOrderRoutes } from './orders/order-routes.ts'
import { registerReportRoutes } from './reports/report-routes.ts'
import { registerReviewRoutes } from './review/review-routes.ts'
import type { VenueApp, VenueVariables } from './venue-env.ts'
import { registerWalletSessionRoutes } from './wallet-session/wallet-session-routes.ts'

export const SERVICE_NAME = 'dating-venue'
export const API_VERSION = '0.1.0'

const markdown = { 'content-type': 'text/markdown; charset=utf-8' }

/** The venue's HTTP app: the geographic gate first, then the request limits, then every room. */
export const buildApp = (
  deps: VenueDeps,
  {
    gate,
    limits,
    maxBodyBytes,
    metricsToken,
  }: {
    gate: MiddlewareHandler
    /** Request limits per client and route class (limits/); none: nothing is limited (benches). */
    limits?: LimitRequestsParameters<VenueLimitName> | undefined
    maxBodyBytes?: number
    metricsToken?: string | undefined
  },
): VenueApp => {
  const app = createApp<VenueVariables>({
    name: SERVICE_NAME,
    version: API_VERSION,
    logger: deps.logger,
    description: 'Adult-only, text-only dating venue where AI agents represent humans.',
    notFoundMessage: 'no such room',
    gate,
    ...(limits ? { limits } : {}),
    ...(maxBodyBytes ? { maxBodyBytes } : {}),
    metrics: deps.metrics,
    metricsToken,
    healthResponses: {
      200: json(
        z
          .object({ ok: z.literal(true), mode: z.literal('day0'), payments: PaymentsHealthSchema })
          .openapi('VenueHealth'),
        'up; payments may be degraded (paid routes then defer with 503)',
      ),
      ...errors({ 500: 'database unavailable: `{ ok: false, error }`' }),
    },
    health: async (c) => {
      try {
        await deps.database.probe()
      } catch (error) {
        deps.logger.error({ err: error }, 'health: database probe failed')
        return c.json({ ok: false, error: 'database unavailable' }, 500)
      }
      // The facilitator and the chains degrade paid routes (they defer with 503), not the venue.
      return c.json({ ok: true, mode: 'day0', payments: await paymentsHealth(deps.payments) })
    },
  })
  registerSecuritySchemes(app)
  const page = (path: string, summary: string, type: string) =>
    document(app, {
      method: 'get',
      path,
      summary,
      limit: LIMIT.read,
      security: SECURITY.none,
      responses: { 200: { description: summary, content: { [type]: { schema: z.string() } } } },
    })
  app.get(
    page(
      '/',
      'Home page: the way in for a person (the chat page), live figures, boards and house policy',
      'text/html',
    ),
    async (c) => {
      // The figures are a part of the page, not the page: without the database it still says
      // what the venue is and how to get in.
      const stats = await venueStats(deps).catch((error: unknown) => {
        deps.logger.error({ err: error }, 'home page: the live figures could not be read')
        return undefined
      })
      return c.html(homePage(deps.baseUrl(), pageNonce(c), stats))
    },
  )
  app.get(page('/skill', 'The skill document', 'text/markdown'), (c) =>
    c.body(skillMd(deps.baseUrl(), deps.refundsEmail), 200, markdown),
  )
  app.get(page('/llms.txt', 'Prose entry point for agents', 'text/markdown'), (c) =>
    c.body(llmsTxt(deps.baseUrl()), 200, markdown),
  )
  app.get(page('/llms-full.txt', 'The full text for agents', 'text/markdown'), (c) =>
    c.body(llmsFullTxt(deps.baseUrl(), deps.refundsEmail), 200, markdown),
  )
  registerIntakeRoutes(app, deps)
  registerAgentRoutes(app, deps)
  registerAdmissionRoutes(app, deps)
  registerReportRoutes(app, deps)
  registerBoardRoutes(app, deps)
  registerCoupleRoutes(app, deps)
  registerJwksRoute(app, deps)
  registerFloorRoutes(app, deps)
  registerEscalationRoutes(app, deps)
  registerIdentityRoutes(app, deps)
  // Each operator route carries its own guard, so the order is free: after the escalation
  // routes, /openapi.json lists the broker after the consent that makes it possible.
  registerAdminRoutes(app, deps)
  registerErasureRoutes(app, deps)
  registerCompatibilityRoutes(app, deps)
  registerFeaturedRoutes(app, deps)
  registerOrderRoutes(app, deps)
  registerWalletSessionRoutes(app, deps)
  registerChatPageRoutes(app, deps)
  registerDraftRoutes(app, deps)
  registerChatAskRoutes(app, deps)
  registerChatTopupRoutes(app, deps)
  registerSubmitDocRoutes(app, deps)
  registerReviewRoutes(app, deps)
  registerConsoleRoutes(app, deps)
  mountMcp(app, {
    name: SERVICE_NAME,
    version: API_VERSION,
    tools: venueTools(deps),
    // Each message counts as its route would: the tools only read, and so does the rest.
    ...(limits ? { limits: { other: 'read' } } : {}),
  })
  return app
}

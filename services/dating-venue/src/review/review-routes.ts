import { answerOf, errors, json, jsonRoute, RowId, SafeText } from '@agents/service-kit'
import { createRoute, z } from '@hono/zod-openapi'
import type { VenueDeps } from '../deps.ts'
import { LIMIT } from '../limits/limit-defaults.ts'
import { SECURITY } from '../openapi.ts'
import type { VenueApp } from '../venue-env.ts'
import { operatorOf, requireOperator } from '../wallet-session/operator-guard.ts'
import { REVIEW_ERRORS, reviewPersona } from './review.ts'

const ReviewBody = z
  .object({
    personaId: RowId,
    decision: z.enum(['approve', 'reject']),
    reason: SafeText.trim()
      .min(1)
      .max(500)
      .optional()
      .openapi({ description: 'recorded with the decision (a rejection keeps it as its reason)' }),
  })
  .strict()
  .openapi('PersonaReview')

const Reviewed = z
  .object({
    personaId: z.number().int(),
    decision: z.enum(['approve', 'reject']),
    status: z.enum(['admitted', 'pending', 'rejected']).openapi({
      description:
        '`pending`: approved at the cap, seated by the match beat when one frees; `rejected`: by the operator or the chaperone',
    }),
    admitted: z.boolean(),
    reason: z.string(),
  })
  .openapi('PersonaReviewed')

/** The operator's review of personas humans submitted from the chat page. */
export const registerReviewRoutes = (app: VenueApp, deps: VenueDeps) => {
  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: '/admin/actions/review',
      limit: LIMIT.write,
      summary: 'Approve or reject a persona held for review (a human doc from the chat page)',
      description:
        'Approval runs the admission gates (the chaperone, then capacity); a rejection records the reason. Each decision is an event (`review_approved`, `review_rejected`).',
      security: SECURITY.operator,
      request: { body: json(ReviewBody, 'the decision') },
      responses: {
        200: json(Reviewed, 'decided'),
        409: json(
          z.object({ error: z.string(), currentStatus: z.string().optional() }),
          REVIEW_ERRORS.notHeldForReview,
        ),
        ...errors({
          400: REVIEW_ERRORS.invalidReview,
          401: 'operator credential required',
          403: 'operator credential not recognised',
          404: REVIEW_ERRORS.noSuchPersona,
          415: 'not JSON',
          503: REVIEW_ERRORS.safetyUnavailable,
        }),
      },
    }),
    async (c, body) => {
      const outcome = await reviewPersona(deps, { ...body, operator: operatorOf(c) })
      return c.json(answerOf(outcome).answer, 200)
    },
    {
      validationMessage: REVIEW_ERRORS.invalidReview,
      // The guard travels with the route: it holds whatever else is registered first.
      middleware: [requireOperator(deps)],
    },
  )
}

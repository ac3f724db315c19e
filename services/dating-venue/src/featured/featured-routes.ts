import { saleResponse } from '@agents/payments'
import { answerOf, errors, json, jsonRoute, RowId, SafeText } from '@agents/service-kit'
import { createRoute, z } from '@hono/zod-openapi'
import { credentialOf, requireCredential } from '../credentials/actor-middleware.ts'
import type { VenueDeps } from '../deps.ts'
import { LIMIT } from '../limits/limit-defaults.ts'
import { SECURITY } from '../openapi.ts'
import { paidNote } from '../orders/paid-item-text.ts'
import { PaymentChallenge } from '../orders/payment-answers.ts'
import type { VenueApp } from '../venue-env.ts'
import { FEATURED_ERRORS } from './featured-errors.ts'
import { featuredItem } from './featured-item.ts'
import { buyFeaturedSlot, featuredAnswer } from './featured-post.ts'

export const FeaturedBody = z
  .object({
    personaId: RowId,
    board: z.enum(['seeking', 'debriefs']),
    body: SafeText.trim().min(1).max(2000),
  })
  .strict()
  .openapi('FeaturedPost')

const Featured = z
  .object({
    ok: z.literal(true),
    orderId: z.string().openapi({ example: 'featured_slot:x402:eip155:8453:0x...' }),
    postId: z.number().int(),
    board: z.enum(['seeking', 'debriefs']),
    featuredUntil: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('FeaturedSlot')

const Full = z
  .object({
    error: z.literal(FEATURED_ERRORS.full),
    slots: z.number().int(),
    nextFreeAt: z.string().nullable().openapi({
      description:
        'when the earliest live featured post ends; null while the slots are held by payments in flight',
    }),
  })
  .openapi('FeaturedSlotsFull')

/** The paid featured slot. */
export const registerFeaturedRoutes = (app: VenueApp, deps: VenueDeps) => {
  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: featuredItem.path,
      limit: LIMIT.challenge,
      summary: `A persona's post featured at the top of its board and the floor (paid: ${paidNote(featuredItem)})`,
      description:
        'The text passes the safety check and the board must have a free slot before the 402: held, blocked or a check that cannot run refuse it with nothing charged. With an MPP payment in `Authorization`, send the credential in `X-Venue-Credential`.',
      security: SECURITY.credential,
      request: { body: json(FeaturedBody, 'the post to feature') },
      responses: {
        201: json(Featured, 'published and featured'),
        402: json(PaymentChallenge, 'payment required, or `payment not verified` with the reason'),
        409: json(Full, 'every slot of the board is taken (Retry-After)'),
        422: json(
          z.object({ error: z.string(), reason: z.string().optional() }),
          'held or blocked by the safety check: nothing charged',
        ),
        ...errors({
          400: FEATURED_ERRORS.invalidBody,
          401: 'credential required',
          403: 'credential not recognised or not acting for this persona; persona not admitted; boards closed until the venue opens',
          404: FEATURED_ERRORS.noSuchPersona,
          415: 'not JSON',
          503: 'safety check unavailable, the outbound budget spent (Retry-After; nothing charged), or payment outcome unknown (Retry-After, reference)',
        }),
      },
    }),
    async (c, body) => {
      const outcome = await buyFeaturedSlot(deps, {
        actor: credentialOf(c),
        ...body,
        request: c.req.raw,
      })
      return saleResponse(answerOf(outcome).outcome, { answer: featuredAnswer })
    },
    {
      validationMessage: FEATURED_ERRORS.invalidBody,
      middleware: [requireCredential(deps, 'featuring a post for a persona')],
    },
  )
}

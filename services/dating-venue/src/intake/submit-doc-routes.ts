import { saleResponse } from '@agents/payments'
import { answerOf, errors, json, jsonRoute, SafeText } from '@agents/service-kit'
import { createRoute, z } from '@hono/zod-openapi'
import { PersonaBody } from '../admission/admission-schemas.ts'
import type { VenueDeps } from '../deps.ts'
import { LIMIT } from '../limits/limit-defaults.ts'
import { paidNote } from '../orders/paid-item-text.ts'
import { PaymentChallenge, PaymentPending } from '../orders/payment-answers.ts'
import type { VenueApp } from '../venue-env.ts'
import { CHAT_ERRORS } from '../wallet-session/chat-errors.ts'
import { chatWalletOf, requireChatWallet } from '../wallet-session/wallet-session.ts'
import { submitDoc, submitDocAnswer } from './submit-doc.ts'
import { SUBMIT_DOC_ERRORS } from './submit-doc-checks.ts'
import { chatDocItem } from './submit-doc-item.ts'

const SubmitDocBody = z
  .object({
    handle: PersonaBody.shape.handle,
    contactRef: SafeText.trim()
      .min(1)
      .max(200)
      .optional()
      .openapi({ description: 'private pointer; sealed at rest; shown only at the reveal' }),
    homeMarket: z.enum(['bay_area', 'nyc', 'other']).default('other'),
    activeMarket: z.enum(['bay_area', 'nyc', 'remote']).default('remote'),
  })
  .strict()
  .openapi('ChatSubmitDoc')

const Submitted = z
  .object({
    personaId: z.number().int(),
    ownerId: z.number().int(),
    orderId: z.string().openapi({ example: 'doc_submit:0x…' }),
    review: z.literal('held for review'),
    admitted: z.literal(false),
  })
  .openapi('ChatDocSubmitted')

const INVALID = 'invalid submission'

/** Submitting the drafted doc from the chat page (paid: `chatDocItem`). */
export const registerSubmitDocRoutes = (app: VenueApp, deps: VenueDeps) => {
  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: chatDocItem.path,
      limit: LIMIT.challenge,
      summary: `Submit the drafted dating doc: a persona bound to the signed-in wallet, held for review (paid: ${paidNote(chatDocItem)})`,
      description:
        "Before the 402, in order: the signed-in adult wallet, the draft complete, no persona of this wallet in review or on the floor, the handle free, then the human floor entry rule (a studio token holding worth at least $50 at the oracle price, the chaperone passing the heart). Any wallet may pay; the persona is the signed-in wallet's. It takes part in nothing until an operator approves it (POST /admin/actions/review).",
      security: [{ chatSession: [] }],
      request: { body: json(SubmitDocBody, 'the handle and the private contact pointer') },
      responses: {
        200: json(Submitted, 'submitted and held for review'),
        402: json(PaymentChallenge, 'payment required, or `payment not verified` with the reason'),
        403: json(
          z.object({
            error: z.string(),
            holdingUsd: z.string().optional(),
            neededUsd: z.string().optional(),
          }),
          `the holding below $50 of the studio token (with what it holds and needs); ${CHAT_ERRORS.attestationRequired}; ${CHAT_ERRORS.crossSite}`,
        ),
        409: json(
          z.object({ error: z.string(), personaId: z.number().int(), review: z.string() }),
          SUBMIT_DOC_ERRORS.alreadySubmitted,
        ),
        422: json(
          z.object({ error: z.string(), reason: z.string() }),
          `${SUBMIT_DOC_ERRORS.chaperone} (with its reason)`,
        ),
        503: json(
          PaymentPending.or(z.object({ error: z.string() })),
          'payment outcome unknown (retry with the same payment), the safety check is unavailable, or the outbound budget is spent (Retry-After); nothing charged',
        ),
        ...errors({
          400: `${INVALID}; ${SUBMIT_DOC_ERRORS.draftIncomplete} (missing: the fields); ${SUBMIT_DOC_ERRORS.handleTaken}`,
          401: CHAT_ERRORS.signInRequired,
          413: 'body too large',
          415: 'not JSON',
        }),
      },
    }),
    async (c, body) => {
      const outcome = await submitDoc(deps, {
        wallet: chatWalletOf(c).wallet,
        body,
        request: c.req.raw,
      })
      return saleResponse(answerOf(outcome).outcome, { answer: submitDocAnswer })
    },
    { validationMessage: INVALID, middleware: [requireChatWallet(deps, { adult: true })] },
  )
}

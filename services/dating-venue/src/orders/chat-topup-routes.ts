import { saleResponse } from '@agents/payments'
import { errors, json, jsonRoute } from '@agents/service-kit'
import { createRoute, z } from '@hono/zod-openapi'
import type { VenueDeps } from '../deps.ts'
import { LIMIT } from '../limits/limit-defaults.ts'
import type { VenueApp } from '../venue-env.ts'
import { CHAT_ERRORS } from '../wallet-session/chat-errors.ts'
import { chatWalletOf, requireChatWallet } from '../wallet-session/wallet-session.ts'
import { sellTopup, TOPUP_ERRORS, topupAnswer } from './chat-topup.ts'
import { itemPrice } from './paid-item-text.ts'
import { PaymentChallenge, PaymentPending } from './payment-answers.ts'
import { TOPUP_CREDITS, TOPUP_MESSAGES, topupItem } from './topup-item.ts'

const TopupBody = z
  .object({})
  .strict()
  .openapi('ChatTopup', {
    description: `nothing to choose: a top-up is always ${itemPrice(topupItem)} for the signed-in wallet`,
  })

const Topped = z
  .object({
    ok: z.literal(true),
    orderId: z.string().openapi({ example: 'chat_topup:x402:eip155:8453:0x...' }),
    credited: z.number().int().openapi({ description: 'credits this top-up added (50)' }),
    credits: z.number().int().openapi({ description: "the wallet's credits after it" }),
    messages: z.number().int().openapi({ description: 'messages the added credits pay for (16)' }),
  })
  .openapi('ChatTopupDone')

/** The chat top-up: credits for the signed-in wallet, paid by that wallet. */
export const registerChatTopupRoutes = (app: VenueApp, deps: VenueDeps) => {
  jsonRoute(
    app,
    createRoute({
      method: 'post',
      path: topupItem.path,
      limit: LIMIT.challenge,
      summary: `Top up chat credits: ${itemPrice(topupItem)} for ${TOPUP_CREDITS} credits (${TOPUP_MESSAGES} messages at 3 credits), pull mode`,
      description:
        'Sign-in and the 18+ attestation are checked before the 402. Paid in pull mode only, so the payment proves the wallet: x402 (an EIP-3009 authorization signed by the wallet) or MPP pull (the wallet signs the Tempo transfer, the venue broadcasts it). A payment from any wallet but the signed-in one is refused with 403 before anything is charged. Credits never expire.',
      security: [{ chatSession: [] }],
      request: { body: json(TopupBody, 'an empty object') },
      responses: {
        200: json(Topped, 'credited (a retry of the same payment gets the same answer)'),
        402: json(PaymentChallenge, 'payment required, or `payment not verified` with the reason'),
        503: json(
          PaymentPending,
          'payment outcome unknown: retry with the same payment (Retry-After)',
        ),
        ...errors({
          400: 'invalid top-up (the body is an empty object)',
          401: CHAT_ERRORS.signInRequired,
          403: `${CHAT_ERRORS.attestationRequired}; ${TOPUP_ERRORS.notYourWallet}; ${CHAT_ERRORS.crossSite}`,
          415: 'not JSON',
        }),
      },
    }),
    async (c) => {
      const { wallet, secret } = chatWalletOf(c)
      const outcome = await sellTopup(deps, { wallet, sessionSecret: secret, request: c.req.raw })
      return saleResponse(outcome, { answer: topupAnswer })
    },
    {
      validationMessage: 'invalid top-up',
      middleware: [requireChatWallet(deps, { adult: true })],
    },
  )
}

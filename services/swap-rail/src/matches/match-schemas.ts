import { PaymentRequiredSchema } from '@agents/payments'
import { z } from '@hono/zod-openapi'

export const GrantView = z
  .object({
    bearer: z.string().openapi({ description: 'send as Authorization: Bearer to the seller' }),
    endpoint: z.string(),
    model: z.string(),
    mtok: z.number().int(),
    expiresAt: z.string().datetime(),
  })
  .openapi('Grant', {
    description: 'a short-lived grant, signed by the hub (JWKS at /.well-known/jwks.json)',
  })

/** A match as served (`matchView`): terms, the live challenge while unpaid, the grant once paid. */
export const MatchView = z
  .object({
    id: z.string().uuid(),
    status: z.enum(['awaiting_payment', 'paid', 'expired']),
    intentId: z.string().uuid(),
    offerId: z.string().uuid(),
    model: z.string(),
    mtok: z.number().int(),
    unitPriceUsd: z.string().openapi({ description: 'USD per MTok' }),
    gross: z.string().openapi({ description: 'what the buyer pays, USDC atomic units' }),
    grossUsd: z.string(),
    feeBps: z.number().int(),
    fee: z.string().openapi({ description: "the hub's fee, USDC atomic units" }),
    sellerNet: z.string().openapi({ description: "the seller's share, USDC atomic units" }),
    splitAddress: z.string(),
    seller: z.object({ endpoint: z.string(), payTo: z.string() }),
    createdAt: z.string().datetime(),
    payBy: z.string().datetime(),
    challenge: z
      .object({
        url: z.string(),
        x402: PaymentRequiredSchema.nullable().openapi({
          description: 'the decoded PAYMENT-REQUIRED header of the pay route',
        }),
        mpp: z.string().nullable().openapi({
          description: 'the WWW-Authenticate: Payment header of the pay route (Tempo)',
        }),
      })
      .nullable()
      .openapi({ description: 'while awaiting payment: the live 402 of the pay route' }),
    paidAt: z.string().datetime().nullable(),
    payment: z
      .object({ rail: z.string(), network: z.string(), transaction: z.string() })
      .nullable(),
    redeemUntil: z.string().datetime().nullable(),
    grant: GrantView.nullable(),
    next: z.string().openapi({ description: 'what to do next, in words' }),
  })
  .openapi('Match')

export type MatchView = z.infer<typeof MatchView>

import { SafeText } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import { isAddress } from 'viem'
import { UsdAmount } from '../money.ts'

export const ModelId = SafeText.regex(
  /^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$/,
  'a model id: letters, digits and . _ : / @ + -, at most 128 characters',
).openapi({ example: 'llama-3.3-70b-instruct' })

export const EvmAddress = SafeText.refine(
  (value) => isAddress(value, { strict: false }),
  'expected a 0x-prefixed EVM address',
).openapi({ example: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' })

export const Mtok = (max: number) =>
  z
    .number()
    .int('whole MTok only')
    .min(1)
    .max(max)
    .openapi({ description: 'millions of tokens', example: 10 })

export const CreateOfferBody = (limits: { maxMtok: number; maxPriceUsd: number }) =>
  z
    .object({
      endpoint: SafeText.max(2048).openapi({
        description:
          "The seller's OpenAI-compatible base URL (https). Buyers call POST {endpoint}/chat/completions with the grant.",
        example: 'https://seller.example/v1',
      }),
      payTo: EvmAddress.openapi({ description: "The seller's payee; its split pays it." }),
      model: ModelId,
      mtok: Mtok(limits.maxMtok).openapi({ description: 'capacity in MTok' }),
      priceUsd: UsdAmount(limits.maxPriceUsd).openapi({
        type: 'string',
        description: 'USD per MTok, at most 6 decimals',
        example: '2.5',
      }),
    })
    .strict()
    .openapi('CreateOffer')

export const CancelOfferBody = z
  .object({
    signature: SafeText.regex(/^0x[0-9a-fA-F]+$/, 'a 0x-prefixed hex signature')
      .max(2 + 2 * 1024)
      .openapi({ description: 'EIP-191 personal_sign by payTo over the cancel message' }),
  })
  .strict()
  .openapi('CancelOffer')

export const ListOffersQuery = z.object({
  model: ModelId.optional(),
  status: z.enum(['open', 'filled', 'cancelled', 'expired', 'all']).default('open'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(10_000).default(0),
})

/** An offer as served (`offerView`). */
export const OfferView = z
  .object({
    id: z.string().uuid(),
    status: z.enum(['open', 'filled', 'cancelled', 'expired']),
    endpoint: z.string(),
    payTo: z.string(),
    model: z.string(),
    mtok: z.number().int().openapi({ description: 'capacity offered, MTok' }),
    remainingMtok: z.number().int().openapi({ description: 'capacity not yet matched, MTok' }),
    priceUsd: z.string().openapi({ description: 'USD per MTok', example: '2.5' }),
    feeBps: z.number().int().openapi({ description: "the hub's fee in force when posted, bps" }),
    splitAddress: z.string().openapi({
      description: "the split contract a buyer pays on Base: payTo's share and the fee",
    }),
    feeRecipient: z.string().nullable().openapi({
      description: "the hub's fee recipient, or null when the split was made for another one",
    }),
    createdAt: z.string().datetime(),
    expiresAt: z.string().datetime(),
  })
  .openapi('Offer')
export type OfferView = z.infer<typeof OfferView>

import { SafeText } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import { Heart } from '../heart/heart-schema.ts'

export const HeartFileBody = z
  .object({
    displayName: SafeText.max(120).optional().openapi({ description: 'cosmetic' }),
    homeMarket: z.enum(['bay_area', 'nyc', 'other']).default('other'),
    activeMarket: z.enum(['bay_area', 'nyc', 'remote']).default('remote'),
    availableFor: SafeText.max(120)
      .optional()
      .openapi({ description: 'comma-separated meeting modes, e.g. "in-person,online"' }),
    researchOptin: z.enum(['none', 'aggregate', 'full']).default('none'),
    ageAttested: z.boolean().default(false).openapi({ description: 'must be true' }),
    contactRef: SafeText.max(200)
      .optional()
      .openapi({ description: 'private pointer; sealed at rest; shown only at the reveal' }),
    heart: Heart,
  })
  .strict()
  .openapi('HeartFile')
export type HeartFileBody = z.infer<typeof HeartFileBody>

export const HeartFiled = z
  .object({
    ownerId: z.number().int(),
    heartFileId: z.number().int(),
    tier: z.string().openapi({ example: 'agent_represented' }),
    ownerCredential: z.string().optional().openapi({
      description:
        '`vo_<ownerId>_<secret>`: only when this payment created the owner (a retry of the same request gets it again)',
    }),
  })
  .openapi('HeartFiled')

export const AdultOnly = z
  .object({ error: z.string(), field: z.literal('ageAttested') })
  .openapi('HeartFileAdultOnly')

export const DocSubmitChallenge = z
  .object({
    x402Version: z.literal(1).optional(),
    error: z.string(),
    accepts: z.array(z.object({}).passthrough()).optional(),
    reason: z.string().optional(),
    detail: z.string().optional(),
  })
  .openapi('DocSubmitChallenge', {
    description:
      'the x402 v1 legacy challenge (plus PAYMENT-REQUIRED and WWW-Authenticate: Payment headers), or `payment not verified` with the reason',
  })

export const PaymentPending = z
  .object({ error: z.string(), reference: z.string(), retryAfterSeconds: z.number().int() })
  .openapi('DocSubmitPending', {
    description:
      'the payment is being settled, or its outcome is not known yet: retry with the same payment (Retry-After)',
  })

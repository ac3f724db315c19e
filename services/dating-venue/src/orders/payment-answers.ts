import { RequirementV1Schema } from '@agents/payments'
import { z } from '@hono/zod-openapi'

/** The 402 of every paid venue route: the legacy v1 challenge, or `payment not verified`. */
export const PaymentChallenge = z
  .object({
    x402Version: z.literal(1).optional(),
    error: z.string(),
    accepts: z.array(RequirementV1Schema).optional(),
    reason: z.string().optional(),
    detail: z.string().optional(),
  })
  .strict()
  .openapi('PaymentChallenge', {
    description:
      'the x402 v1 legacy challenge (plus PAYMENT-REQUIRED and WWW-Authenticate: Payment headers), or `payment not verified` with the reason',
  })

/** The 503 of a paid route whose payment is being settled or whose outcome is not known yet. */
export const PaymentPending = z
  .object({ error: z.string(), reference: z.string(), retryAfterSeconds: z.number().int() })
  .strict()
  .openapi('PaymentPending', {
    description:
      'the payment is being settled, or its outcome is not known yet: retry with the same payment (Retry-After)',
  })

import { z } from 'zod'
import type { RequirementV1, RequirementV2 } from './requirements.ts'

const Extra = z
  .record(z.string(), z.unknown())
  .describe('rail-specific terms (EIP-712 domain name and version, a fee payer)')

/** One x402 v2 `accepts` entry, for OpenAPI documents of the routes that show one. */
export const RequirementV2Schema = z.object({
  scheme: z.literal('exact'),
  network: z.string().describe('CAIP-2 chain id, e.g. eip155:8453'),
  amount: z.string().describe('atomic units of the asset'),
  asset: z.string().describe('the token contract (USDC)'),
  payTo: z.string(),
  maxTimeoutSeconds: z.number().int(),
  extra: Extra,
}) satisfies z.ZodType<RequirementV2>

/** One legacy x402 v1 `accepts` entry (the body of a 402 in the v1 form). */
export const RequirementV1Schema = z.object({
  scheme: z.literal('exact'),
  network: z.string(),
  maxAmountRequired: z.string().describe('atomic units of the asset'),
  resource: z.string(),
  description: z.string(),
  mimeType: z.string(),
  payTo: z.string(),
  maxTimeoutSeconds: z.number().int(),
  asset: z.string(),
  outputSchema: z.record(z.string(), z.unknown()),
  extra: Extra,
}) satisfies z.ZodType<RequirementV1>

/** The decoded `PAYMENT-REQUIRED` header (x402 v2). */
export const PaymentRequiredSchema = z.object({
  x402Version: z.literal(2),
  error: z.string(),
  resource: z.object({ url: z.string(), description: z.string(), mimeType: z.string() }),
  accepts: z.array(RequirementV2Schema),
})

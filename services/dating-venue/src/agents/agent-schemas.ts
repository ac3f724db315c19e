import { RowId, SafeText } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import { isAddress } from 'viem'

export const AgentBody = z
  .object({
    ownerId: RowId.optional(),
    personaId: RowId.optional(),
    runtime: z.enum(['openclaw', 'hermes', 'claude', 'codex', 'other']),
    callbackUrl: SafeText.max(2048).optional().openapi({ description: 'https URL' }),
    publicKey: SafeText.refine(
      (value) => isAddress(value, { strict: false }),
      'expected an EVM address',
    )
      .optional()
      .openapi({ description: 'EVM address; needed for the signature proof' }),
  })
  .strict()
  .refine((body) => body.publicKey || body.callbackUrl, {
    message: 'at least one of publicKey or callbackUrl is needed to satisfy the challenge',
    path: ['publicKey'],
  })
  .openapi('AgentEndpoint')
export type AgentBody = z.infer<typeof AgentBody>

export const AgentRegistered = z
  .object({
    id: z.number().int().openapi({ description: 'the endpoint id (endpointId of verify)' }),
    challengeNonce: z
      .string()
      .openapi({ description: 'sign it (EIP-191), echo it, or let the callback echo it' }),
  })
  .openapi('AgentRegistered')

export const VerifyBody = z
  .object({
    endpointId: RowId,
    signature: SafeText.regex(/^0x[0-9a-fA-F]{2,2048}$/, 'a 0x-prefixed hex signature').optional(),
    echoToken: SafeText.max(300).optional(),
  })
  .strict()
  .openapi('VerifyAgent')
export type VerifyBody = z.infer<typeof VerifyBody>

export const AgentActive = z
  .object({
    active: z.literal(true),
    reason: z.string().openapi({ example: 'verified:signature' }),
    agentCredential: z.string().optional().openapi({
      description: '`va_<endpointId>_<secret>`, served once: on the proof that activates',
    }),
  })
  .openapi('AgentActive')

export const AgentNotActive = z
  .object({
    active: z.literal(false),
    reason: z.enum(['unknown endpoint', 'challenge not satisfied']),
    detail: z.string().optional(),
  })
  .openapi('AgentNotActive')

export type VerifyAnswer = z.infer<typeof AgentActive> | z.infer<typeof AgentNotActive>

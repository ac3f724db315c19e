import { RowId } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'

/** A new identity session names the owner it is for; other fields are ignored. */
export const IdentitySessionBody = z.object({ ownerId: RowId }).openapi('IdentitySessionRequest')

export const IdentitySession = z
  .object({ ok: z.literal(true), url: z.string().url(), sessionId: z.string().nullable() })
  .openapi('IdentitySession')

export const WebhookApplied = z
  .object({
    ok: z.literal(true),
    ignored: z
      .string()
      .optional()
      .openapi({ description: 'an event type the venue does not act on' }),
    note: z.string().optional().openapi({ description: 'why nothing (or less) changed' }),
  })
  .openapi('IdentityWebhookApplied')

export const WebhookRejected = z
  .object({ error: z.literal('webhook rejected'), reason: z.string() })
  .openapi('IdentityWebhookRejected')

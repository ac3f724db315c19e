import { z } from '@hono/zod-openapi'

/** The review status of the wallet's latest submitted doc, as GET /api/chat/me shows it. */
export const ChatReview = z
  .object({
    personaId: z.number().int(),
    handle: z.string(),
    status: z.string().openapi({
      description:
        '`held for review`, `approved, waiting for a seat`, `admitted`, `rejected`, `held` (on reports) or `withdrawn`',
    }),
    reason: z.string().nullable().openapi({ description: 'why it was rejected or held' }),
  })
  .nullable()
  .openapi('ChatReview', { description: 'null until a doc is submitted' })

import { z } from '@hono/zod-openapi'

const Tier = z.enum(['agent_represented', 'profile_claimed', 'identity_verified'])

/** GET /api/chat/me `escalation`: the wallet's live couples and, once minted, its invite link. */
export const ChatEscalation = z
  .object({
    ownerId: z.number().int().nullable().openapi({
      description:
        'the owner the wallet keys (its session acts for it); null before it submitted a doc',
    }),
    tier: Tier.nullable().openapi({
      description: "the wallet's owner tier; null before it submitted a doc",
    }),
    couples: z.array(
      z.object({
        id: z.number().int(),
        state: z.enum(['courting', 'committed', 'brokered']),
        personaId: z.number().int().openapi({ description: "the wallet's own persona in it" }),
        handle: z.string().openapi({ description: "the wallet's own persona's handle" }),
        partner: z.string().openapi({ description: "the partner persona's handle, nothing else" }),
        consented: z.boolean().openapi({ description: 'this owner gave intro consent' }),
        yourTurn: z.boolean().openapi({ description: 'the partner wrote last (or nobody yet)' }),
        invite: z
          .object({
            url: z.string().url().openapi({ description: 'the one-time claim link' }),
            expiresAt: z.string().openapi({ format: 'date-time' }),
          })
          .nullable()
          .openapi({ description: "this owner's live unclaimed invite, once minted" }),
      }),
    ),
  })
  .openapi('ChatEscalation')

import { RowId, SafeText } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'

/** Intro consent names the owner it acts for; other fields are ignored. */
export const OwnerRef = z.object({ ownerId: RowId }).openapi('OwnerRef')

export const ClaimBody = z
  .object({
    token: SafeText.min(8).openapi({ description: 'the invite token (uuid)' }),
    authToken: SafeText.min(8).openapi({ description: 'the login token of the signed-in human' }),
  })
  .openapi('Claim')

export const Consented = z
  .object({
    consented: z.literal(true),
    both: z.boolean().openapi({ description: 'both owners (or both humans) have consented' }),
  })
  .openapi('Consented')

const Delivery = z.enum(['callback', 'board', 'chat']).openapi({
  description:
    "`callback` (signed, with the token), `board` (a notifications line without it), or `chat` (a human of the chat page without an agent: the invite waits on that wallet's chat page)",
})

export const InvitesCreated = z
  .object({
    ok: z.literal(true),
    invites: z.array(
      z.object({
        ownerId: z.number().int(),
        token: z.string().nullable().openapi({ description: "only the caller's own owner's" }),
        delivery: Delivery,
      }),
    ),
    expiresAt: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('InvitesCreated')

export const OwnInvite = z
  .object({
    ownerId: z.number().int(),
    coupleId: z.number().int(),
    token: z.string(),
    claimUrl: z.string().url(),
    expiresAt: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('OwnInvite')

export const EscalationStatus = z
  .object({
    coupleId: z.number().int(),
    owners: z.array(
      z.object({
        id: z.number().int(),
        tier: z.enum(['agent_represented', 'profile_claimed', 'identity_verified']),
      }),
    ),
    reveal_ready: z.boolean(),
  })
  .openapi('EscalationStatus')

export const Claimed = z
  .object({
    ok: z.literal(true),
    ownerId: z.number().int(),
    tier: z.enum(['agent_represented', 'profile_claimed', 'identity_verified']),
    diditUrl: z.string().nullable().openapi({ description: 'where the identity check runs' }),
    identityNote: z.string().nullable().openapi({ description: 'why there is no check URL' }),
  })
  .openapi('Claimed')

export const RevealNotReady = z
  .object({ error: z.literal('reveal not ready'), missing: z.array(z.string()) })
  .openapi('RevealNotReady')

export const Revealed = z
  .object({
    coupleId: z.number().int(),
    ownerId: z.number().int(),
    contactRef: z.string().nullable(),
    note: z.string().optional(),
  })
  .openapi('Revealed')

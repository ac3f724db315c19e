import { randomUUID } from 'node:crypto'
import { and, eq, gt, isNull } from 'drizzle-orm'
import type { SeatExecutor } from '../admission/seats.ts'
import { invites } from '../db/schema.ts'

/**
 * The spec's invite states, and the only place that writes them: an invite
 * is minted unused (one per owner of a committed couple, replacing that
 * owner's unused ones); unused and unexpired -> claimed, once. Every
 * function takes the transaction (or database) it writes in.
 */
export const INVITE_TOKEN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A fresh unused invite for an owner of a couple; that owner's unused ones for it are dropped. */
export const mintInvite = async (
  tx: SeatExecutor,
  { coupleId, ownerId, expiresAt }: { coupleId: number; ownerId: number; expiresAt: Date },
) => {
  await tx
    .delete(invites)
    .where(
      and(eq(invites.coupleId, coupleId), eq(invites.ownerId, ownerId), isNull(invites.claimedAt)),
    )
  const token = randomUUID()
  await tx.insert(invites).values({ token, coupleId, ownerId, expiresAt })
  return token
}

/**
 * unused and unexpired -> claimed, with one conditional UPDATE (two racing
 * claims: one wins). Answers the invite's owner, or undefined when the token
 * names no live invite.
 */
export const claimInviteToken = async (tx: SeatExecutor, token: string) => {
  if (!INVITE_TOKEN.test(token)) return undefined
  const [claimed] = await tx
    .update(invites)
    .set({ claimedAt: new Date() })
    .where(
      and(eq(invites.token, token), isNull(invites.claimedAt), gt(invites.expiresAt, new Date())),
    )
    .returning({ ownerId: invites.ownerId })
  return claimed?.ownerId
}

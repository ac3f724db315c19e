import { isUniqueViolation, rowsOf } from '@agents/service-kit/db'
import { and, eq, isNull, or, sql } from 'drizzle-orm'
import type { SeatExecutor } from '../admission/seats.ts'
import { identitySessions, owners } from '../db/schema.ts'

/**
 * The spec's owner tiers and identity sessions, and the only place that
 * writes them: an owner is `agent_represented` from intake; the human who
 * claims its invite makes it `profile_claimed`; an approved check at 18 or
 * over makes it `identity_verified` (age over 18 set); approved under 18
 * sets age over 18 false and never verifies. A session is `Not Started`
 * when created, then takes the provider's statuses; a final one
 * (`Approved`, `Declined`) is never replaced by a later non-final one.
 * Every function takes the transaction (or database) it writes in.
 */
export type OwnerTier = (typeof owners.$inferSelect)['tier']

export const FINAL_SESSION_STATUSES: ReadonlySet<string> = new Set(['Approved', 'Declined'])

/**
 * Binds an owner to the signed-in human (`agent_represented` ->
 * `profile_claimed`; a higher tier stays). Answers the owner, or
 * `claimedByAnother` when another human holds it, or `subjectTaken` when
 * this human already claimed another owner (one human, one owner).
 */
export const claimOwner = async (tx: SeatExecutor, ownerId: number, subject: string) => {
  try {
    const [bound] = await tx
      .update(owners)
      .set({
        humanSubject: subject,
        tier: sql`CASE WHEN ${owners.tier} = 'agent_represented' THEN 'profile_claimed' ELSE ${owners.tier} END`,
      })
      .where(
        and(
          eq(owners.id, ownerId),
          or(isNull(owners.humanSubject), eq(owners.humanSubject, subject)),
        ),
      )
      .returning({ id: owners.id, tier: owners.tier })
    return bound
      ? { ok: true as const, owner: bound }
      : { ok: false as const, why: 'claimedByAnother' as const }
  } catch (error) {
    if (isUniqueViolation(error)) return { ok: false as const, why: 'subjectTaken' as const }
    throw error
  }
}

/** A new session at the provider for an owner, `Not Started` (a known session id changes nothing). */
export const insertIdentitySession = async (
  tx: SeatExecutor,
  { sessionId, ownerId }: { sessionId: string; ownerId: number },
) => {
  await tx
    .insert(identitySessions)
    .values({ sessionId, ownerId, status: 'Not Started' })
    .onConflictDoNothing()
}

/** The session's row, locked for the transaction (undefined when unknown). */
export const lockIdentitySession = async (tx: SeatExecutor, sessionId: string) => {
  const locked = await tx.execute(
    sql`SELECT owner_id, status, last_event_at FROM identity_sessions WHERE session_id = ${sessionId} FOR UPDATE`,
  )
  return rowsOf<{ owner_id: number; status: string; last_event_at: number | null }>(locked)[0]
}

/** A session takes the provider's status, sent at `sentAt` (Unix seconds). */
export const recordSessionStatus = async (
  tx: SeatExecutor,
  { sessionId, status, sentAt }: { sessionId: string; status: string; sentAt: number },
) => {
  await tx
    .update(identitySessions)
    .set({ status, lastEventAt: sentAt, updatedAt: new Date() })
    .where(eq(identitySessions.sessionId, sessionId))
}

/** -> `identity_verified` with age over 18; answers false when the owner already was. */
export const verifyOwner = async (tx: SeatExecutor, ownerId: number) => {
  const [verified] = await tx
    .update(owners)
    .set({ tier: 'identity_verified', ageOver18: true })
    .where(and(eq(owners.id, ownerId), sql`${owners.tier} <> 'identity_verified'`))
    .returning({ id: owners.id })
  return verified !== undefined
}

/** Approved under 18: age over 18 false; the tier is left as it is (never verified). */
export const markOwnerUnder18 = async (tx: SeatExecutor, ownerId: number) => {
  await tx.update(owners).set({ ageOver18: false }).where(eq(owners.id, ownerId))
}

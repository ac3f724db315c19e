import { eq } from 'drizzle-orm'
import { withdrawPersona } from '../admission/persona-state.ts'
import { withdrawCouplesOf } from '../couples/couple-state.ts'
import { events, personas } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { IDENTITY_ERRORS } from './identity-errors.ts'
import {
  FINAL_SESSION_STATUSES,
  lockIdentitySession,
  markOwnerUnder18,
  recordSessionStatus,
  verifyOwner,
} from './identity-state.ts'
import type { IdpEvent } from './types.ts'

export type ApplyIdentityEventParameters = {
  event: IdpEvent
  /** The delivery's `X-Timestamp` (Unix seconds), already checked fresh by the signature check. */
  sentAt: number
}

export type ApplyIdentityEventReturnType =
  | { ok: true; ignored: string }
  | { ok: true; note?: string }

/**
 * Acts on one verified identity-provider event. Only `status.updated` acts.
 * The session row is locked; a delivery older than (or as old as) the last
 * one acted on changes nothing, and a final result is never replaced by a
 * later non-final status, so retries, replays and re-ordered deliveries are
 * harmless. Approved at 18 or over: the owner becomes identity_verified.
 * Approved under 18: not verified; the owner's personas leave the venue.
 */
export const applyIdentityEvent = async (
  deps: VenueDeps,
  { event, sentAt }: ApplyIdentityEventParameters,
): Promise<ApplyIdentityEventReturnType> => {
  if (event.webhookType !== 'status.updated') return { ok: true, ignored: event.webhookType }
  return deps.database.db.transaction(async (tx) => {
    const session = await lockIdentitySession(tx, event.sessionId)
    if (!session) return { ok: true, note: IDENTITY_ERRORS.noSession }
    const last = session.last_event_at
    if (last !== null && (sentAt < last || (sentAt === last && event.status === session.status)))
      return { ok: true, note: IDENTITY_ERRORS.olderDelivery }
    if (FINAL_SESSION_STATUSES.has(session.status) && !FINAL_SESSION_STATUSES.has(event.status))
      return { ok: true, note: IDENTITY_ERRORS.alreadyFinal(session.status) }
    await recordSessionStatus(tx, { sessionId: event.sessionId, status: event.status, sentAt })
    const ownerId = session.owner_id
    if (event.status !== 'Approved') {
      await tx
        .insert(events)
        .values({ kind: 'identity_status', detail: { ownerId, status: event.status } })
      return { ok: true }
    }
    if (event.age !== undefined && event.age >= 18) {
      if (await verifyOwner(tx, ownerId))
        await tx.insert(events).values({ kind: 'identity_verified', detail: { ownerId } })
      return { ok: true }
    }
    if (event.age === undefined) {
      // Approved without an age cannot prove 18+: not verified, nothing else changes.
      await tx.insert(events).values({ kind: 'identity_age_unknown', detail: { ownerId } })
      return { ok: true, note: IDENTITY_ERRORS.noAge }
    }
    // Under 18: never verified; every persona of this owner leaves the venue now.
    await markOwnerUnder18(tx, ownerId)
    const owned = await tx
      .select({ id: personas.id })
      .from(personas)
      .where(eq(personas.ownerId, ownerId))
    const ids = owned.map((persona) => persona.id)
    for (const id of ids) await withdrawPersona(tx, id, IDENTITY_ERRORS.under18Reason)
    await withdrawCouplesOf(tx, ids)
    await tx
      .insert(events)
      .values({ kind: 'underage_withdrawn', detail: { ownerId, personas: ids } })
    return { ok: true, note: IDENTITY_ERRORS.under18 }
  })
}

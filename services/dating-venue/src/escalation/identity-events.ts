import { and, eq, inArray, sql } from 'drizzle-orm'
import { releaseSeat } from '../admission/admission.ts'
import {
  couples,
  courtshipSeats,
  events,
  identitySessions,
  owners,
  personas,
} from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'

export type IdentityEvent = {
  webhookType: string
  sessionId: string
  status: string
  age?: number | undefined
}

const FINAL = new Set(['Approved', 'Declined'])

/**
 * Acts on one verified identity-provider event. Only `status.updated` acts.
 * The session row is locked; a delivery older than (or as old as) the last
 * one acted on changes nothing, and a final result is never replaced by a
 * later non-final status, so retries, replays and re-ordered deliveries are
 * harmless. Approved at 18 or over: the owner becomes identity_verified.
 * Approved under 18: not verified; the owner's personas leave the venue.
 */
export const applyIdentityEvent = async (deps: VenueDeps, event: IdentityEvent, sentAt: number) => {
  if (event.webhookType !== 'status.updated')
    return { ok: true as const, ignored: event.webhookType }
  return deps.database.db.transaction(async (tx) => {
    const locked = await tx.execute(
      sql`SELECT owner_id, status, last_event_at FROM identity_sessions WHERE session_id = ${event.sessionId} FOR UPDATE`,
    )
    const session = (
      locked as unknown as {
        rows: Array<{ owner_id: number; status: string; last_event_at: number | null }>
      }
    ).rows[0]
    if (!session) return { ok: true as const, note: 'no matching session/vendor_data' }
    const last = session.last_event_at
    if (last !== null && (sentAt < last || (sentAt === last && event.status === session.status)))
      return { ok: true as const, note: 'an older or repeated delivery; nothing changed' }
    if (FINAL.has(session.status) && !FINAL.has(event.status))
      return { ok: true as const, note: `session already ${session.status}; nothing changed` }
    await tx
      .update(identitySessions)
      .set({ status: event.status, lastEventAt: sentAt, updatedAt: new Date() })
      .where(eq(identitySessions.sessionId, event.sessionId))
    const ownerId = session.owner_id
    if (event.status !== 'Approved') {
      await tx
        .insert(events)
        .values({ kind: 'identity_status', detail: { ownerId, status: event.status } })
      return { ok: true as const }
    }
    if (event.age !== undefined && event.age >= 18) {
      const [verified] = await tx
        .update(owners)
        .set({ tier: 'identity_verified', ageOver18: true })
        .where(and(eq(owners.id, ownerId), sql`${owners.tier} <> 'identity_verified'`))
        .returning({ id: owners.id })
      if (verified)
        await tx.insert(events).values({ kind: 'identity_verified', detail: { ownerId } })
      return { ok: true as const }
    }
    if (event.age === undefined) {
      // Approved without an age cannot prove 18+: not verified, nothing else changes.
      await tx.insert(events).values({ kind: 'identity_age_unknown', detail: { ownerId } })
      return { ok: true as const, note: 'approved without an age: not verified' }
    }
    // Under 18: never verified; every persona of this owner leaves the venue now.
    await tx.update(owners).set({ ageOver18: false }).where(eq(owners.id, ownerId))
    const owned = await tx
      .select({ id: personas.id, status: personas.status })
      .from(personas)
      .where(eq(personas.ownerId, ownerId))
    const ids = owned.map((persona) => persona.id)
    if (ids.length > 0) {
      await tx
        .update(personas)
        .set({ status: 'withdrawn', reason: 'identity check: under 18' })
        .where(inArray(personas.id, ids))
      for (const persona of owned) if (persona.status === 'admitted') await releaseSeat(tx)
      const touched = await tx
        .select({ id: couples.id })
        .from(couples)
        .where(
          and(
            sql`(${couples.personaA} IN ${ids} OR ${couples.personaB} IN ${ids})`,
            sql`${couples.state} NOT IN ('withdrawn')`,
          ),
        )
      if (touched.length > 0) {
        const coupleIds = touched.map((couple) => couple.id)
        await tx
          .update(couples)
          .set({ state: 'withdrawn', endedAt: new Date() })
          .where(inArray(couples.id, coupleIds))
        await tx.delete(courtshipSeats).where(inArray(courtshipSeats.coupleId, coupleIds))
      }
    }
    await tx
      .insert(events)
      .values({ kind: 'underage_withdrawn', detail: { ownerId, personas: ids } })
    return { ok: true as const, note: 'under 18: not verified; personas withdrawn' }
  })
}

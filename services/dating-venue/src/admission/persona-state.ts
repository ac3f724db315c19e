import { type AnyTransaction, pgArray, rowsOf } from '@agents/service-kit/db'
import { and, eq, sql } from 'drizzle-orm'
import type { ErasedTables } from '../db/erased-tables.ts'
import { personas } from '../db/schema.ts'
import { releaseSeat, type SeatExecutor, seatKindOf } from './seats.ts'

/**
 * The spec's persona states, and the only place that writes them:
 * (entered) -> `pending` (gates passed) or `rejected` (the chaperone
 * refused); `pending` -> `admitted` when a seat is taken; `admitted` or
 * `pending` -> `held` on reports; any -> `withdrawn` (identity check).
 * A human's doc from the chat page enters `held` for review and leaves it
 * for `pending` (approved) or `rejected` (settleReview).
 * Every function takes the transaction (or database) it writes in.
 */
export type PersonaStatus = (typeof personas.$inferSelect)['status']

export type PersonaValues = Omit<
  typeof personas.$inferInsert,
  'id' | 'status' | 'reason' | 'createdAt' | 'admittedAt'
>

/** The reason of a persona a human submitted from the chat page until an operator reviews it. */
export const HELD_FOR_REVIEW = 'held for review'

/**
 * Enters a persona as `pending` (it waits for a seat), `rejected` with the
 * chaperone's reason, or `held` for review (a human's doc from the chat page).
 */
export const insertPersona = async (
  tx: SeatExecutor,
  values: PersonaValues,
  initial:
    | { status: 'pending' }
    | { status: 'rejected'; reason: string }
    | { status: 'held'; reason: typeof HELD_FOR_REVIEW },
) => {
  const [persona] = await tx
    .insert(personas)
    .values({ ...values, ...initial })
    .returning({ id: personas.id })
  return persona!.id
}

/** `pending` -> `admitted`; the caller has taken its seat in the same transaction. */
export const admitPersona = async (tx: SeatExecutor, personaId: number) => {
  await tx
    .update(personas)
    .set({ status: 'admitted', admittedAt: new Date() })
    .where(eq(personas.id, personaId))
}

/**
 * `held` for review -> `pending` (approved: it then takes a seat like any
 * admission) or `rejected` with the reviewer's reason. Only a persona held
 * for review moves (not one held on reports); false when it was not.
 */
export const settleReview = async (
  tx: SeatExecutor,
  personaId: number,
  outcome: { status: 'pending' } | { status: 'rejected'; reason: string },
) => {
  const moved = await tx
    .update(personas)
    .set(outcome.status === 'pending' ? { status: 'pending', reason: null } : outcome)
    .where(
      and(
        eq(personas.id, personaId),
        eq(personas.status, 'held'),
        eq(personas.reason, HELD_FOR_REVIEW),
      ),
    )
    .returning({ id: personas.id })
  return moved.length > 0
}

/**
 * `admitted` or `pending` -> `held` with a reason; an admitted persona
 * gives its seat back (a pending one never had one). Returns the status it
 * was held from, or undefined when it was neither.
 */
export const holdPersona = async (tx: SeatExecutor, personaId: number, reason: string) => {
  const hold = (from: 'admitted' | 'pending') =>
    tx
      .update(personas)
      .set({ status: 'held', reason })
      .where(and(eq(personas.id, personaId), eq(personas.status, from)))
      .returning({ id: personas.id, ownerId: personas.ownerId })
  const [seated] = await hold('admitted')
  if (seated) {
    await releaseSeat(tx, seatKindOf(seated.ownerId))
    return 'admitted' as const
  }
  return (await hold('pending')).length > 0 ? ('pending' as const) : undefined
}

/**
 * Any status -> `withdrawn` with a reason (e.g. the identity check found
 * the owner under 18); an admitted persona gives its seat back. Returns the
 * status it had, or undefined when there is no such persona.
 */
export const withdrawPersona = async (tx: SeatExecutor, personaId: number, reason: string) => {
  const result = await tx.execute(
    sql`SELECT status, owner_id FROM personas WHERE id = ${personaId} FOR UPDATE`,
  )
  const [row] = rowsOf<{ status: PersonaStatus; owner_id: number | null }>(result)
  if (!row) return undefined
  await tx.update(personas).set({ status: 'withdrawn', reason }).where(eq(personas.id, personaId))
  if (row.status === 'admitted') await releaseSeat(tx, seatKindOf(row.owner_id))
  return row.status
}

/**
 * `held` on reports -> `pending` (an operator found nothing wrong): it takes
 * a seat again like any admission, from the match beat when one is free.
 * A persona held for review is not moved (settleReview decides it).
 */
export const releaseHeldPersona = async (tx: SeatExecutor, personaId: number) => {
  const moved = await tx
    .update(personas)
    .set({ status: 'pending', reason: null })
    .where(
      and(
        eq(personas.id, personaId),
        eq(personas.status, 'held'),
        sql`${personas.reason} IS DISTINCT FROM ${HELD_FOR_REVIEW}`,
      ),
    )
    .returning({ id: personas.id })
  return moved.length > 0
}

/** A persona of an owner being erased, as the rest of the erasure names it. */
export type ErasedPersona = { id: number; handle: string; status: PersonaStatus }

/**
 * What erasing an owner means for `personas` (erasure/erase-owner.ts runs
 * it in its one transaction): its personas are locked first, so the rest of
 * the erasure can name them; admitted ones give their (owned) seats back;
 * then the rows go, and with them, by cascade, their match vectors,
 * courtship seats and posts.
 */
export const personasErasure = {
  erases: { personas: 'deleted' } satisfies ErasedTables,
  lock: async (tx: AnyTransaction, ownerId: number) =>
    rowsOf<ErasedPersona>(
      await tx.execute(
        sql`SELECT id, handle, status FROM personas WHERE owner_id = ${ownerId} FOR UPDATE`,
      ),
    ),
  releaseSeats: async (tx: AnyTransaction, erased: readonly ErasedPersona[]) => {
    // The couples' courtship seats go with the couples (couplesErasure).
    for (const persona of erased) if (persona.status === 'admitted') await releaseSeat(tx, 'owned')
  },
  remove: async (tx: AnyTransaction, personaIds: readonly number[]) => {
    await tx.execute(sql`DELETE FROM personas WHERE id = ANY(${pgArray(personaIds)}::int[])`)
  },
}

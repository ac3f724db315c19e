import { type AnyTransaction, pgArray, rowsOf } from '@agents/service-kit/db'
import { and, eq, inArray, or, type SQL, sql } from 'drizzle-orm'
import type { SeatExecutor } from '../admission/seats.ts'
import type { ErasedTables } from '../db/erased-tables.ts'
import { couples, courtshipSeats, events } from '../db/schema.ts'

/**
 * The spec's couple states, and the only place that writes them: a beat's
 * pair becomes `courting` (with its courtship seats);
 * `courting` -> `committed` (both owners gave intro consent; `intro_ready`
 * recorded once); `committed` -> `brokered` (the operator; `intro_brokered`
 * recorded); `courting` or `committed` -> `withdrawn` (either side), and
 * any but `withdrawn` -> `withdrawn` (the identity check found an owner
 * under 18), the courtship seat freed;
 * any but `held` -> `held` (reports). Every function takes the transaction
 * (or database) it writes in and answers whether the couple moved.
 */
export type CoupleState = (typeof couples.$inferSelect)['state']

/**
 * (paired) -> `courting`: the couples a beat forms, each with a courtship
 * seat per persona, as common table expressions of the caller's statement
 * (the beat writes its couples, their opening turns and its notifications in
 * one). Reads the proposed pairs from a CTE `pair (a, b)`, in which a persona
 * is at most once; defines `made (id, persona_a, persona_b)`, the couples
 * formed. A pair already formed in this cycle is skipped (the couples' key:
 * a re-run forms none twice); so is a pair in which a persona has no free
 * seat below `maxCourtships`. Each seat takes its persona's lowest free slot,
 * so a slot freed by a withdrawal is taken again; the seats' key (persona,
 * slot) refuses a second statement seating a persona in the same slot at once.
 */
export const insertCouples = ({
  cycleId,
  semantic,
  maxCourtships,
  personas,
}: {
  cycleId: string
  semantic: boolean
  maxCourtships: number
  /** Every persona of `pair`: the seats are read for these alone, through the seats' key. */
  personas: readonly number[]
}) => sql`
  seat_free AS (
    -- Each persona's lowest free slot. No CTE is joined here or in made: the
    -- planner cannot estimate CTE rows, and a low guess nests loops over 25,000 couples.
    SELECT DISTINCT ON (p.persona) p.persona, slot.n AS slot
    FROM unnest(${pgArray(personas)}::int[]) AS p(persona)
    CROSS JOIN generate_series(0, ${maxCourtships}::int - 1) AS slot(n)
    WHERE NOT EXISTS (
      SELECT 1 FROM courtship_seats s WHERE s.persona_id = p.persona AND s.slot = slot.n)
    ORDER BY p.persona, slot.n),
  seat_full AS (
    SELECT persona_id FROM courtship_seats
    WHERE persona_id = ANY(${pgArray(personas)}::int[])
    GROUP BY persona_id HAVING count(*) >= ${maxCourtships}::int),
  made AS (
    INSERT INTO couples (cycle_id, persona_a, persona_b, semantic)
    SELECT ${cycleId}::text, pair.a, pair.b, ${semantic}::boolean
    FROM pair
    WHERE pair.a NOT IN (SELECT persona_id FROM seat_full)
      AND pair.b NOT IN (SELECT persona_id FROM seat_full)
    ORDER BY pair.a, pair.b
    ON CONFLICT (cycle_id, persona_a, persona_b) DO NOTHING
    RETURNING id, persona_a, persona_b),
  seated AS (
    INSERT INTO courtship_seats (persona_id, slot, couple_id)
    SELECT seat.persona, seat_free.slot, seat.couple
    FROM (SELECT persona_a AS persona, id AS couple FROM made
          UNION ALL SELECT persona_b, id FROM made) AS seat
    JOIN seat_free ON seat_free.persona = seat.persona)`

/** States in which the personas still court (turns, consent, withdrawal). */
export const COURTING_STATES: readonly CoupleState[] = ['courting', 'committed']

/** `courting` -> `committed`, recording `intro_ready` once (a second call moves nothing). */
export const commitCouple = async (tx: SeatExecutor, coupleId: number) => {
  const [committed] = await tx
    .update(couples)
    .set({ state: 'committed' })
    .where(and(eq(couples.id, coupleId), eq(couples.state, 'courting')))
    .returning({ id: couples.id })
  if (committed)
    await tx
      .insert(events)
      .values({ kind: 'intro_ready', detail: sql`${JSON.stringify({ coupleId })}::jsonb` })
  return committed !== undefined
}

/**
 * `committed` -> `brokered`, recording `intro_brokered`. When it did not
 * move, answers the state the couple is in (undefined: no such couple).
 */
export const brokerCouple = async (
  tx: SeatExecutor,
  coupleId: number,
  /** Who brokered it, named in the event: an operator wallet, or `token`. */
  operator?: string,
): Promise<{ moved: true } | { moved: false; state: CoupleState | undefined }> => {
  const [moved] = await tx
    .update(couples)
    .set({ state: 'brokered' })
    .where(and(eq(couples.id, coupleId), eq(couples.state, 'committed')))
    .returning({ id: couples.id })
  if (moved) {
    await tx
      .insert(events)
      .values({ kind: 'intro_brokered', detail: { coupleId, ...(operator ? { operator } : {}) } })
    return { moved: true }
  }
  const [couple] = await tx
    .select({ state: couples.state })
    .from(couples)
    .where(eq(couples.id, coupleId))
  return { moved: false, state: couple?.state }
}

const endCouples = async (tx: SeatExecutor, ids: readonly number[]) => {
  if (ids.length > 0)
    await tx.delete(courtshipSeats).where(inArray(courtshipSeats.coupleId, [...ids]))
  return ids
}

/** `courting` or `committed` -> `withdrawn` (either side ends it), its courtship seat freed. */
export const withdrawCouple = async (tx: SeatExecutor, coupleId: number) => {
  const ended = await tx
    .update(couples)
    .set({ state: 'withdrawn', endedAt: new Date() })
    .where(and(eq(couples.id, coupleId), inArray(couples.state, [...COURTING_STATES])))
    .returning({ id: couples.id })
  await endCouples(
    tx,
    ended.map((couple) => couple.id),
  )
  return ended.length > 0
}

/**
 * Every couple a persona of `personaIds` is in, in any state but
 * `withdrawn` (brokered and held ones too), -> `withdrawn`, their seats
 * freed: the identity check found the owner under 18. Answers the ids.
 */
export const withdrawCouplesOf = async (tx: SeatExecutor, personaIds: readonly number[]) => {
  if (personaIds.length === 0) return []
  const ended = await tx
    .update(couples)
    .set({ state: 'withdrawn', endedAt: new Date() })
    .where(
      and(
        or(inArray(couples.personaA, [...personaIds]), inArray(couples.personaB, [...personaIds])),
        sql`${couples.state} <> 'withdrawn'`,
      ),
    )
    .returning({ id: couples.id })
  return endCouples(
    tx,
    ended.map((couple) => couple.id),
  )
}

/** Any state but `held` -> `held` (enough distinct reporters); taken out of matching and the floor. */
export const holdCouple = async (tx: SeatExecutor, coupleId: number) => {
  const held = await tx
    .update(couples)
    .set({ state: 'held' })
    .where(and(eq(couples.id, coupleId), sql`${couples.state} <> 'held'`))
    .returning({ id: couples.id })
  return held.length > 0
}

/** `held` -> `withdrawn`: the operator ended a courtship the reporters held; its seats freed. */
export const endHeldCouple = async (tx: SeatExecutor, coupleId: number) => {
  const ended = await tx
    .update(couples)
    .set({ state: 'withdrawn', endedAt: new Date() })
    .where(and(eq(couples.id, coupleId), eq(couples.state, 'held')))
    .returning({ id: couples.id })
  await endCouples(
    tx,
    ended.map((couple) => couple.id),
  )
  return ended.length > 0
}

/** The other side of a couple an erasure ends, told as for a withdrawal once it commits. */
export type EndedPartner = { coupleId: number; personaId: number; handle: string }

const ints = (values: readonly number[]) => sql`${pgArray(values)}::int[]`

/**
 * What erasing an owner means for `couples` (erasure/erase-owner.ts runs it
 * in its one transaction). Every couple an erased persona is in is locked
 * first; one still courting another persona ends as a withdrawal would end
 * it (its partner told, free for the next beat); then the couples go, their
 * record and turns holding the erased persona's words, and with them, by
 * cascade, turns, courtship seats, consents and invites.
 */
export const couplesErasure = {
  erases: { couples: 'deleted' } satisfies ErasedTables,
  /** The couples of `personaIds`, locked, and the partners whose courtship the erasure ends. */
  lock: async (tx: AnyTransaction, personaIds: readonly number[]) => {
    const run = async <row>(query: SQL) => rowsOf<row>(await tx.execute(query))
    const rows = await run<{ id: number; persona_a: number; persona_b: number; state: string }>(
      sql`SELECT id, persona_a, persona_b, state FROM couples
          WHERE persona_a = ANY(${ints(personaIds)}) OR persona_b = ANY(${ints(personaIds)})
          FOR UPDATE`,
    )
    const mine = new Set(personaIds)
    const partnerIds = rows
      .filter((couple) => couple.state !== 'withdrawn')
      .map((couple) => ({
        coupleId: couple.id,
        personaId: mine.has(couple.persona_a) ? couple.persona_b : couple.persona_a,
      }))
      .filter((partner) => !mine.has(partner.personaId))
    const handles = new Map(
      (
        await run<{ id: number; handle: string }>(
          sql`SELECT id, handle FROM personas WHERE id = ANY(${ints(partnerIds.map((p) => p.personaId))})`,
        )
      ).map((row) => [row.id, row.handle]),
    )
    const partners: EndedPartner[] = partnerIds.map((partner) => ({
      ...partner,
      handle: handles.get(partner.personaId) ?? '',
    }))
    return { coupleIds: rows.map((couple) => couple.id), partners }
  },
  remove: async (tx: AnyTransaction, coupleIds: readonly number[]) => {
    await tx.execute(sql`DELETE FROM couples WHERE id = ANY(${ints(coupleIds)})`)
  },
}

import type { AnyTransaction } from '@agents/service-kit/db'
import { rowsOf } from '@agents/service-kit/db'
import { type SQL, sql } from 'drizzle-orm'
import type { VenueDatabase } from '../db/open.ts'

export type SeatExecutor = AnyTransaction | VenueDatabase['db']

/**
 * Whose seat a persona holds: `owned` when an owner stands behind it (its
 * owner paid to file a doc), `unowned` otherwise (anonymous, simulation and
 * red-team personas, an agent bound to no owner). Fixed at entry: a
 * persona's owner never changes.
 */
export type SeatKind = 'owned' | 'unowned'

export const seatKindOf = (ownerId: number | null | undefined): SeatKind =>
  ownerId == null ? 'unowned' : 'owned'

/** The cap and the unowned personas' share of it, as SQL read inside the seat's statement. */
export type SeatLimits = { capSql: () => SQL; unownedSeatsSql: () => SQL }

/**
 * Takes one seat if the cap allows it: one conditional UPDATE of the one
 * capacity row, so the cap holds under any concurrency on any replica. An
 * unowned persona also needs room in its share (`unowned_used` below the
 * share's seats), so owned personas always keep the cap minus that share.
 */
export const takeSeat = async (tx: SeatExecutor, limits: SeatLimits, kind: SeatKind) => {
  const result = await tx.execute(
    kind === 'owned'
      ? sql`UPDATE capacity SET used = used + 1 WHERE id = 1 AND used < ${limits.capSql()} RETURNING used`
      : sql`UPDATE capacity SET used = used + 1, unowned_used = unowned_used + 1
            WHERE id = 1 AND used < ${limits.capSql()} AND unowned_used < ${limits.unownedSeatsSql()}
            RETURNING used`,
  )
  return rowsOf(result).length === 1
}

/** Gives a persona's seat back (withdrawal, a hold, erasure): the next beat admits a pending one. */
export const releaseSeat = async (tx: SeatExecutor, kind: SeatKind) => {
  await tx.execute(
    kind === 'owned'
      ? sql`UPDATE capacity SET used = used - 1 WHERE id = 1 AND used > 0`
      : sql`UPDATE capacity SET used = greatest(used - 1, 0), unowned_used = greatest(unowned_used - 1, 0)
            WHERE id = 1`,
  )
}

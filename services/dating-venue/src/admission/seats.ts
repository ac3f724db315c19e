import type { AnyTransaction } from '@agents/service-kit/db'
import { rowsOf } from '@agents/service-kit/db'
import { type SQL, sql } from 'drizzle-orm'
import type { VenueDatabase } from '../db/open.ts'

export type SeatExecutor = AnyTransaction | VenueDatabase['db']

/** Takes one seat if the cap allows it: one conditional UPDATE, so the cap holds under any concurrency. */
export const takeSeat = async (tx: SeatExecutor, capSql: SQL) => {
  const result = await tx.execute(
    sql`UPDATE capacity SET used = used + 1 WHERE id = 1 AND used < ${capSql} RETURNING used`,
  )
  return rowsOf(result).length === 1
}

/** Gives a persona's seat back (withdrawal, a hold): the next beat admits a pending one. */
export const releaseSeat = async (tx: SeatExecutor) => {
  await tx.execute(sql`UPDATE capacity SET used = used - 1 WHERE id = 1 AND used > 0`)
}

import { type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../matching/match-book.ts'

/** Advisory lock classes (the two-key form, apart from the one-key locks of the sweep and reconciler). */
export const BOOK_LOCKS = {
  offersOfSeller: 7_246_101,
  offersOfClient: 7_246_102,
  intentsOfClient: 7_246_103,
} as const

/**
 * Takes transaction-level advisory locks on book keys (a payTo, a client),
 * in the order given: each bound's count and the insert it allows then run
 * one poster at a time, on every replica, until the transaction ends. Every
 * caller names the seller before the client, so two posters never wait on
 * each other in a cycle.
 */
export const lockBook = async (
  tx: Executor,
  keys: ReadonlyArray<readonly [lockClass: number, key: string]>,
) => {
  if (keys.length === 0) return
  const locks: SQL[] = keys.map(
    ([lockClass, key]) => sql`pg_advisory_xact_lock(${lockClass}::int, hashtext(${key}::text))`,
  )
  await tx.execute(sql`SELECT ${sql.join(locks, sql`, `)}`)
}

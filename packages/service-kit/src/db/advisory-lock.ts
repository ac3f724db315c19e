import { sql } from 'drizzle-orm'
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core'
import { rowsOf } from './rows-of.ts'

// biome-ignore lint/suspicious/noExplicitAny: works for any schema
type AnyDatabase = PgDatabase<PgQueryResultHKT, any>
// biome-ignore lint/suspicious/noExplicitAny: works for any schema
export type AnyTransaction = PgTransaction<PgQueryResultHKT, any, any>

/**
 * Runs `work` in a transaction holding the advisory lock `key`, or not at
 * all when another session (another replica) holds it: singleton work such
 * as expiry sweeps and the match beat. The lock is released with the
 * transaction, also when the process dies.
 */
export const runExclusive = async <value>(
  db: AnyDatabase,
  key: number,
  work: (tx: AnyTransaction) => Promise<value>,
): Promise<{ ran: true; value: value } | { ran: false }> =>
  db.transaction(async (tx) => {
    const result = await tx.execute(sql`SELECT pg_try_advisory_xact_lock(${key}) AS locked`)
    const [row] = rowsOf<{ locked: boolean }>(result)
    if (!row?.locked) return { ran: false as const }
    return { ran: true as const, value: await work(tx) }
  })

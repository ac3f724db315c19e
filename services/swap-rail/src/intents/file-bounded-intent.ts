import { rowsOf } from '@agents/service-kit/db'
import { sql } from 'drizzle-orm'
import type { SwapDeps } from '../deps.ts'
import type { BookRefusal } from '../limits/book-bounds.ts'
import { BOOK_LOCKS, lockBook } from '../limits/lock-book.ts'
import {
  type Executor,
  type FileIntentReturnType,
  fileIntent,
  type NewIntent,
} from '../matching/match-book.ts'

/** Seconds until the soonest of a client's counted intents lapses: a waiting one expires, or a match's payment window ends. */
const soonestRelease = async (tx: Executor, clientKey: string) => {
  const result = await tx.execute(sql`
    SELECT ceil(extract(epoch FROM least(
      (SELECT min(expires_at) FROM swap_intents
       WHERE client_key = ${clientKey} AND status = 'open' AND expires_at > now()),
      (SELECT min(pay_by) FROM swap_matches
       WHERE client_key = ${clientKey} AND status = 'awaiting_payment' AND pay_by > now())
    ) - now())) AS seconds`)
  const seconds = Number(rowsOf<{ seconds: number | string | null }>(result)[0]?.seconds ?? 1)
  return Math.max(seconds, 1)
}

/**
 * `fileIntent` under the client's bound: without one, the single statement
 * as it is; with one on PostgreSQL, in a transaction that first takes the
 * client's advisory lock, so the count in the statement holds against
 * concurrent requests and every replica. PGlite is one process running one
 * statement at a time, so there the statement alone is enough (and stays
 * prepared: PGlite's transactions run their statements unprepared, which
 * cost ~4 ms a filing, bench/README.md).
 */
export const fileBoundedIntent = async (
  deps: Pick<SwapDeps, 'database' | 'windows' | 'bounds'>,
  intent: NewIntent,
): Promise<Exclude<FileIntentReturnType, { refused: true }> | { refused: BookRefusal }> => {
  const bound = deps.bounds.intentsPerClient
  const { clientKey } = intent
  if (bound === undefined || clientKey === null) {
    const filed = await fileIntent(deps.database.db, intent, deps.windows)
    if ('refused' in filed) throw new Error('an intent without a bound was refused')
    return filed
  }
  const fileUnderBound = async (executor: Executor) => {
    const filed = await fileIntent(executor, intent, deps.windows, { bound })
    if (!('refused' in filed)) return filed
    const retryAfter = await soonestRelease(executor, clientKey)
    return { refused: { bound: 'open-intents' as const, max: bound, retryAfter } }
  }
  if (deps.database.kind === 'pglite') return fileUnderBound(deps.database.db)
  return deps.database.db.transaction(async (tx) => {
    await lockBook(tx, [[BOOK_LOCKS.intentsOfClient, clientKey]])
    return fileUnderBound(tx)
  })
}

import { AsyncLocalStorage } from 'node:async_hooks'

/**
 * A query sent to the database outside a transaction, from that
 * transaction's own work while it is still open. On PGlite (one
 * connection) it waits for the transaction to end, and the transaction
 * waits for it: the process never answers again. On PostgreSQL it runs on
 * another connection, where it cannot see what the transaction wrote and
 * may wait on its locks.
 */
export class QueryOutsideTransactionError extends Error {
  override readonly name = 'QueryOutsideTransactionError'

  constructor(query: string) {
    super(
      `a query was sent outside the open transaction it was issued from: use the transaction (tx), not the database, inside it. Query: ${query.slice(0, 200)}`,
    )
  }
}

export type TransactionGuard = {
  /** Runs a transaction's work marked as inside it, until the work returns. */
  within: <value>(work: () => Promise<value>) => Promise<value>
  /** Throws QueryOutsideTransactionError when called from the work of a transaction still open. */
  assertOutside: (query: string) => void
}

/**
 * Tells a query sent on the database (not on a transaction) from inside an
 * open transaction's work, through the async context that work runs in.
 * Work started by the transaction and still running after it ended is free
 * to use the database.
 *
 * @example
 * const guard = createTransactionGuard()
 * await pglite.transaction((tx) => guard.within(() => work(tx)))
 * guard.assertOutside(text) // in the database's own query: throws from inside `work`
 */
export const createTransactionGuard = (): TransactionGuard => {
  const inside = new AsyncLocalStorage<{ open: boolean }>()
  return {
    within: (work) => {
      const state = { open: true }
      return inside.run(state, async () => {
        try {
          return await work()
        } finally {
          state.open = false
        }
      })
    },
    assertOutside: (query) => {
      if (inside.getStore()?.open) throw new QueryOutsideTransactionError(query)
    },
  }
}

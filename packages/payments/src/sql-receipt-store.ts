import type { ReceiptStore } from './receipt-store.ts'
import type { PaymentReceipt } from './types.ts'

/** What the store needs from a database client: `pg`'s Pool and PGlite both fit. */
export type SqlQueryable = {
  query: (text: string, params?: unknown[]) => Promise<{ rows: unknown[] }>
}

/** The table, for a service's migration: the primary key is what makes a reference single-use. */
export const receiptTableSql = (table = 'payment_receipts') => `
CREATE TABLE IF NOT EXISTS ${identifier(table)} (
  reference text PRIMARY KEY,
  receipt jsonb,
  claimed_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
)`

const identifier = (name: string) => {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a table name: ${name}`)
  return name
}

/**
 * A receipt store on PostgreSQL. The claim is one INSERT ... ON CONFLICT DO
 * NOTHING: the unique key decides between racing requests on any number of
 * replicas, never a read-then-write in JavaScript.
 */
export const createSqlReceiptStore = (
  db: SqlQueryable,
  { table = 'payment_receipts' } = {},
): ReceiptStore => {
  const name = identifier(table)
  return {
    claim: async (reference) => {
      const { rows } = await db.query(
        `INSERT INTO ${name} (reference) VALUES ($1) ON CONFLICT (reference) DO NOTHING RETURNING reference`,
        [reference],
      )
      return rows.length === 1
    },
    release: async (reference) => {
      // A completed payment is never given back.
      await db.query(`DELETE FROM ${name} WHERE reference = $1 AND completed_at IS NULL`, [
        reference,
      ])
    },
    complete: async (reference, receipt: PaymentReceipt) => {
      await db.query(`UPDATE ${name} SET receipt = $2, completed_at = now() WHERE reference = $1`, [
        reference,
        JSON.stringify(receipt),
      ])
    },
  }
}

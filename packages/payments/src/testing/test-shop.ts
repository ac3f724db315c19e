import { rowsOf } from '@agents/service-kit/db'
import { PGlite } from '@electric-sql/pglite'
import { sql } from 'drizzle-orm'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import pg from 'pg'
import type { LedgerDatabase } from '../ledger/ledger.ts'
import type { SaleAnswer } from '../sale-answer.ts'
import type { SaleProduct } from '../sale-product.ts'
import type { PaymentReceipt } from '../types.ts'

/**
 * The ledger's DDL, as the services' drizzle migrations create it: for
 * tests and benches that have no migrations of their own.
 */
export const LEDGER_TABLE_SQL = `
CREATE TABLE IF NOT EXISTS payment_ledger (
  reference text PRIMARY KEY NOT NULL,
  kind text NOT NULL,
  request_key text NOT NULL,
  state text NOT NULL,
  rail text NOT NULL,
  network text NOT NULL,
  amount bigint NOT NULL,
  pay_to text NOT NULL,
  payer text DEFAULT '' NOT NULL,
  proof jsonb NOT NULL,
  "order" jsonb,
  receipt jsonb,
  fulfilment jsonb,
  detail text,
  settle_attempts integer DEFAULT 0 NOT NULL,
  lease_until timestamptz,
  created_at timestamptz DEFAULT now() NOT NULL,
  updated_at timestamptz DEFAULT now() NOT NULL,
  settled_at timestamptz,
  fulfilled_at timestamptz
);
CREATE INDEX IF NOT EXISTS payment_ledger_unresolved ON payment_ledger (updated_at)
  WHERE state IN ('claimed', 'settling', 'unknown') OR (state = 'settled' AND fulfilled_at IS NULL);
CREATE TABLE IF NOT EXISTS test_deliveries (
  id serial PRIMARY KEY,
  item text NOT NULL,
  reference text NOT NULL UNIQUE
);`

/**
 * A database holding the ledger and a `test_deliveries` table: PGlite in
 * memory, or a PostgreSQL database at `url`.
 */
export const openTestShopDatabase = async (
  url?: string,
): Promise<{ db: LedgerDatabase; close: () => Promise<void> }> => {
  if (url) {
    const pool = new pg.Pool({ connectionString: url, max: 10 })
    pool.on('error', () => {})
    await pool.query(LEDGER_TABLE_SQL)
    return { db: drizzlePg(pool) as unknown as LedgerDatabase, close: () => pool.end() }
  }
  const pglite = await PGlite.create('memory://')
  await pglite.exec(LEDGER_TABLE_SQL)
  return { db: drizzlePglite(pglite) as unknown as LedgerDatabase, close: () => pglite.close() }
}

export type TestOrder = { item: string }
export type TestFulfilment = { deliveryId: number; item: string }

/**
 * A product that writes one `test_deliveries` row per payment: what a
 * paid route sells, reduced to a row a test can count.
 */
export const testProduct = (
  kind = 'test_item',
  { fail }: { fail?: () => boolean } = {},
): SaleProduct<TestOrder, TestFulfilment> => ({
  kind,
  fulfil: async (tx, { item }, receipt) => {
    if (fail?.()) throw new Error('delivery failed (test switch)')
    const result = await tx.execute(
      sql`INSERT INTO test_deliveries (item, reference) VALUES (${item}, ${receipt.reference}) RETURNING id`,
    )
    const [row] = rowsOf<{ id: number }>(result)
    return { deliveryId: row!.id, item }
  },
})

/** How the test shop's routes answer a delivery: the row, who paid and how much. */
export const testAnswer = (fulfilment: TestFulfilment, receipt: PaymentReceipt): SaleAnswer => ({
  status: 200,
  body: { ...fulfilment, payer: receipt.payer, amount: receipt.amount },
})

/** How many deliveries the test shop made (of `item`, or in all). */
export const countDeliveries = async (db: LedgerDatabase, item?: string) => {
  const result = await db.execute(
    item
      ? sql`SELECT count(*)::int AS n FROM test_deliveries WHERE item = ${item}`
      : sql`SELECT count(*)::int AS n FROM test_deliveries`,
  )
  return rowsOf<{ n: number }>(result)[0]!.n
}

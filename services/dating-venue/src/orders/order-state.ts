import type { AnyTransaction } from '@agents/service-kit/db'
import { and, eq, ne, or, sql } from 'drizzle-orm'
import type { VenueDatabase } from '../db/open.ts'
import { orders } from '../db/schema.ts'

/**
 * The spec's order states: (created) -> `challenged` when the 402 is sent;
 * `challenged` -> `fulfilled` when a verified payment's receipt is persisted
 * with the delivery (written with its revenue by `paidOrderWrites`);
 * `challenged` -> `failed` when verification fails. A failed
 * order may be challenged again (the buyer retries); a fulfilled one never
 * changes.
 */
export type OrderStatus = (typeof orders.$inferSelect)['status']

type Executor = AnyTransaction | VenueDatabase['db']

/** EVM hashes compare without case; a Solana signature (base58) is case-sensitive. */
export const normalizeTransaction = (transaction: string) =>
  transaction.startsWith('0x') ? transaction.toLowerCase() : transaction

export type OrderInput = { id: string; kind: string; ownerId: number | null; amountAtomic: bigint }

/** A 402 was sent for the order: `challenged` unless it is already fulfilled. Returns its status. */
export const challengeOrder = async (db: Executor, order: OrderInput): Promise<OrderStatus> => {
  await db
    .insert(orders)
    .values({ ...order, status: 'challenged' })
    .onConflictDoUpdate({
      target: orders.id,
      set: { status: 'challenged', failureReason: null, updatedAt: sql`now()` },
      setWhere: sql`${orders.status} <> 'fulfilled'`,
    })
  const [row] = await db
    .select({ status: orders.status })
    .from(orders)
    .where(eq(orders.id, order.id))
  return row!.status
}

/** An order another payment may not take: not paid, and not being settled by another payment. */
const holdable = (reference: string) =>
  sql`${orders.status} <> 'fulfilled' AND (${orders.settlingReference} IS NULL OR ${orders.settlingReference} = ${reference})`

/**
 * Reserves the order for one payment, in the payment's claim transaction:
 * `held` (this payment may settle), `fulfilled` (another payment already
 * paid it: refuse before this one moves money) or `busy` (another payment
 * is settling it now).
 */
export const holdOrder = async (
  tx: Executor,
  order: OrderInput,
  reference: string,
): Promise<'held' | 'fulfilled' | 'busy'> => {
  const held = await tx
    .insert(orders)
    .values({ ...order, status: 'challenged', settlingReference: reference })
    .onConflictDoUpdate({
      target: orders.id,
      set: { settlingReference: reference, updatedAt: sql`now()` },
      setWhere: holdable(reference),
    })
    .returning({ id: orders.id })
  if (held.length > 0) return 'held'
  const [row] = await tx
    .select({ status: orders.status })
    .from(orders)
    .where(eq(orders.id, order.id))
  return row?.status === 'fulfilled' ? 'fulfilled' : 'busy'
}

/** The held payment failed without moving money: the order is free again, `failed` with the reason. */
export const releaseOrder = async (
  tx: Executor,
  orderId: string,
  reference: string,
  reason: string,
) => {
  await tx
    .update(orders)
    .set({
      settlingReference: null,
      status: 'failed',
      failureReason: reason,
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(orders.id, orderId),
        eq(orders.settlingReference, reference),
        ne(orders.status, 'fulfilled'),
      ),
    )
}

/** Verification of a payment for the order failed: `failed` with the reason (a fulfilled order stays). */
export const failOrder = async (db: Executor, order: OrderInput, reason: string) => {
  await db
    .insert(orders)
    .values({ ...order, status: 'failed', failureReason: reason })
    .onConflictDoUpdate({
      target: orders.id,
      set: { status: 'failed', failureReason: reason, updatedAt: sql`now()` },
      // Another payment being settled for the order decides it, not this refusal.
      setWhere: sql`${orders.status} <> 'fulfilled' AND ${orders.settlingReference} IS NULL`,
    })
}

/** One order by its id or by the transaction hash that paid it (the operator's look-up). */
export const findOrder = async (
  database: VenueDatabase,
  { orderId, transaction }: { orderId?: string; transaction?: string },
) => {
  const [row] = await database.db
    .select()
    .from(orders)
    .where(
      or(
        orderId === undefined ? undefined : eq(orders.id, orderId),
        transaction === undefined
          ? undefined
          : eq(orders.transaction, normalizeTransaction(transaction)),
      ),
    )
    .limit(1)
  return row
}

/** Orders counted by status, every status present (zero when none). */
export const ordersByStatus = async (database: VenueDatabase) => {
  const rows = await database.db
    .select({ status: orders.status, count: sql<number>`count(*)::int` })
    .from(orders)
    .groupBy(orders.status)
  const counts: Record<OrderStatus, number> = { challenged: 0, fulfilled: 0, failed: 0 }
  for (const row of rows) counts[row.status] = row.count
  return counts
}

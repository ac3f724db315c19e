import type { PaymentReceipt } from '@agents/payments'
import type { AnyTransaction } from '@agents/service-kit/db'
import { type SQL, sql } from 'drizzle-orm'
import type { VenueDatabase } from '../db/open.ts'
import { orders, revenue } from '../db/schema.ts'
import { normalizeTransaction, type OrderInput } from './order-state.ts'
import { reserveOf } from './revenue.ts'

type PaidOrder = Omit<OrderInput, 'id' | 'amountAtomic'> & { id?: string }

/** Items sold once per payment have no order id of their own: theirs is `<kind>:<payment reference>`. */
const orderIdOf = ({ id, kind }: PaidOrder, receipt: PaymentReceipt) =>
  id ?? `${kind}:${receipt.reference}`

/**
 * What every paid delivery records: the order `fulfilled` with its receipt
 * (unless another payment fulfilled it first) and its revenue, a tenth to
 * the buyback reserve (once per order id). Two data-modifying CTEs that
 * write one row each only if `source` has a row: a delivery's transaction
 * passes a one-row source, and a delivery at once (`deliverAtOnce`) the
 * ledger's `paid`, so nothing is written when another delivery came first.
 */
export const paidOrderWrites = (order: PaidOrder, receipt: PaymentReceipt, source: SQL) => {
  const orderId = orderIdOf(order, receipt)
  const amount = BigInt(receipt.amount)
  const transaction = receipt.transaction ? normalizeTransaction(receipt.transaction) : null
  // Parameters are cast: in a SELECT list PostgreSQL would take them as text.
  return sql`paid_order as (
    insert into ${orders} (id, kind, owner_id, amount_atomic, status, payment_reference, transaction)
    select ${orderId}::text, ${order.kind}::text, ${order.ownerId}::integer, ${amount.toString()}::bigint,
      'fulfilled', ${receipt.reference}::text, ${transaction}::text from ${source}
    on conflict (id) do update set status = 'fulfilled', settling_reference = null,
      payment_reference = excluded.payment_reference, transaction = excluded.transaction,
      failure_reason = null, updated_at = now()
    where ${orders.status} <> 'fulfilled'
  ), paid_revenue as (
    insert into ${revenue} (order_id, kind, rail, amount_atomic, reserve_atomic)
    select ${orderId}::text, ${order.kind}::text, ${receipt.rail}::text,
      ${amount.toString()}::bigint, ${reserveOf(amount).toString()}::bigint from ${source}
    on conflict (order_id) do nothing
  )`
}

/**
 * Records a paid order in the delivering transaction (one statement: see
 * `paidOrderWrites`); revenue is never counted for an undelivered order,
 * nor twice. Returns the order id.
 */
export const recordPaidOrder = async (
  tx: AnyTransaction | VenueDatabase['db'],
  order: PaidOrder,
  receipt: PaymentReceipt,
) => {
  await tx.execute(
    sql`with ${paidOrderWrites(order, receipt, sql.raw('(select 1) as one'))} select 1`,
  )
  return orderIdOf(order, receipt)
}

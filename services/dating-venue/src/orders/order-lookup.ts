import { eq } from 'drizzle-orm'
import type { VenueDatabase } from '../db/open.ts'
import { creditEvents, revenue } from '../db/schema.ts'
import { findOrder } from './order-state.ts'
import { formatUsdc } from './usdc.ts'

/**
 * One order as the operator answers a refund e-mail: by order id or by the
 * transaction hash that paid it, with its revenue and any credit given for
 * it. Undefined when neither names an order.
 */
export const lookUpOrder = async (
  database: VenueDatabase,
  query: { orderId?: string; transaction?: string },
) => {
  const order = await findOrder(database, query)
  if (!order) return undefined
  const [[earned], credited] = await Promise.all([
    database.db.select().from(revenue).where(eq(revenue.orderId, order.id)),
    database.db.select().from(creditEvents).where(eq(creditEvents.orderId, order.id)),
  ])
  return {
    orderId: order.id,
    kind: order.kind,
    status: order.status,
    ownerId: order.ownerId,
    amountUsdc: formatUsdc(order.amountAtomic),
    receiptId: order.paymentReference,
    transaction: order.transaction,
    failureReason: order.failureReason,
    createdAt: order.createdAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
    revenue: earned
      ? {
          rail: earned.rail,
          amountUsdc: formatUsdc(earned.amountAtomic),
          reserveUsdc: formatUsdc(earned.reserveAtomic),
        }
      : null,
    credited: credited.map((event) => ({
      wallet: event.wallet,
      credits: event.credits,
      reason: event.reason,
      at: event.createdAt.toISOString(),
    })),
  }
}

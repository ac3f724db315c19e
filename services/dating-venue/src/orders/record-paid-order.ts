import type { PaymentReceipt } from '@agents/payments'
import type { AnyTransaction } from '@agents/service-kit/db'
import { fulfilOrder, type OrderInput } from './order-state.ts'
import { recordRevenue } from './revenue.ts'

/**
 * What every paid delivery records, in the delivering transaction: the
 * order `fulfilled` with its receipt, and its revenue (a tenth to the
 * buyback reserve). Items sold once per payment have no order id of their
 * own: theirs is `<kind>:<payment reference>`.
 */
export const recordPaidOrder = async (
  tx: AnyTransaction,
  { id, kind, ownerId }: Omit<OrderInput, 'id' | 'amountAtomic'> & { id?: string },
  receipt: PaymentReceipt,
) => {
  const orderId = id ?? `${kind}:${receipt.reference}`
  const amountAtomic = BigInt(receipt.amount)
  await fulfilOrder(tx, { id: orderId, kind, ownerId, amountAtomic }, receipt)
  await recordRevenue(tx, { orderId, kind, rail: receipt.rail, amountAtomic })
  return orderId
}

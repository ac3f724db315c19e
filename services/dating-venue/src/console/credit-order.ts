import { paymentLedger } from '@agents/payments'
import { type Refusal, refusal } from '@agents/service-kit'
import { eq } from 'drizzle-orm'
import { events } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { creditUndelivered } from '../orders/credits.ts'
import { findOrder } from '../orders/order-state.ts'

export const CREDIT_ERRORS = {
  invalid: 'invalid credit',
  noSuchOrder: 'no such order',
  notPaid: 'this order was never paid: there is nothing to credit',
  noPayer: 'the paying wallet of this order is no longer on record: nothing to credit',
  alreadyCredited: 'this order was already credited',
} as const

export type CreditOutcome =
  | { ok: true; answer: { orderId: string; wallet: string; credits: number } }
  | Refusal<404 | 409>

/**
 * The refund rule from the console: the operator, answering an e-mail,
 * found that the venue took the money and did not deliver, and credits the
 * paying wallet with the order's amount in chat credits (25 per USDC, never
 * expiring). Once per order, whoever credits first (the venue itself at
 * delivery, or an operator); an event names the operator.
 */
export const creditOrder = async (
  deps: Pick<VenueDeps, 'database'>,
  { orderId, operator }: { orderId: string; operator: string },
): Promise<CreditOutcome> => {
  const order = await findOrder(deps.database, { orderId })
  if (!order) return refusal(404, CREDIT_ERRORS.noSuchOrder)
  if (!order.paymentReference) return refusal(409, CREDIT_ERRORS.notPaid)
  const [payment] = await deps.database.db
    .select({ payer: paymentLedger.payer, amount: paymentLedger.amount })
    .from(paymentLedger)
    .where(eq(paymentLedger.reference, order.paymentReference))
  // The retention sweep drops the payer of old payments (accounting keeps amounts only).
  if (!payment?.payer) return refusal(409, CREDIT_ERRORS.noPayer)
  return deps.database.db.transaction(async (tx): Promise<CreditOutcome> => {
    const { credited, credits } = await creditUndelivered(tx, {
      wallet: payment.payer,
      orderId: order.id,
      amountAtomic: payment.amount,
    })
    if (!credited) return refusal(409, CREDIT_ERRORS.alreadyCredited)
    await tx.insert(events).values({
      kind: 'order_credited',
      detail: { orderId: order.id, credits, operator },
    })
    return {
      ok: true,
      answer: { orderId: order.id, wallet: payment.payer.toLowerCase(), credits },
    }
  })
}

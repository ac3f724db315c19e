import { definePaidItem, type PaymentReceipt } from '@agents/payments'
import type { AnyTransaction } from '@agents/service-kit/db'
import type { VenueDeps } from '../deps.ts'
import { CREDITS_PER_MESSAGE, creditBalance, creditsFor, creditUndelivered } from './credits.ts'
import { priceOf } from './paid-item-text.ts'
import { recordPaidOrder } from './record-paid-order.ts'

const PRICE = { amount: 2_000_000n }
export const TOPUP_KIND = 'chat_topup'
export const TOPUP_PATH = '/api/chat/topup'

/**
 * What a top-up buys: 25 credits per USDC (50), spent 3 a message, so 16
 * messages with 2 credits over. The spec says "15 messages per top-up"; the
 * venue gives at least that and keeps one rate for credits however they were
 * earned (top-ups, refunds), so a refund credit and a bought one are worth
 * the same message.
 */
export const TOPUP_CREDITS = creditsFor(PRICE.amount)
export const TOPUP_MESSAGES = Math.floor(TOPUP_CREDITS / CREDITS_PER_MESSAGE)

export type TopupOrder = { wallet: string }
export type TopupFulfilment = {
  orderId: string
  credited: number
  credits: number
  messages: number
}

const creditTopup = async (
  tx: AnyTransaction,
  order: TopupOrder,
  receipt: PaymentReceipt,
): Promise<TopupFulfilment> => {
  const orderId = await recordPaidOrder(tx, { kind: TOPUP_KIND, ownerId: null }, receipt)
  const { credits: credited } = await creditUndelivered(tx, {
    wallet: order.wallet,
    orderId,
    amountAtomic: BigInt(receipt.amount),
    reason: 'topup',
  })
  return {
    orderId,
    credited,
    credits: await creditBalance(tx, order.wallet),
    messages: Math.floor(credited / CREDITS_PER_MESSAGE),
  }
}

/**
 * The chat top-up: credits for the signed-in wallet, once per payment, with
 * the order and its revenue. Pull mode on both rails, so the payment itself
 * proves the wallet (the sale refuses any other payer).
 */
export const topupItem = definePaidItem({
  kind: TOPUP_KIND,
  method: 'post',
  path: TOPUP_PATH,
  price: PRICE,
  body: 'legacy-v1',
  what: `${TOPUP_CREDITS} chat credits (${TOPUP_MESSAGES} messages) for the human signed in on the chat page, paid by that wallet`,
  description: `chat_topup: ${TOPUP_CREDITS} chat credits (${TOPUP_MESSAGES} messages) for the signed-in wallet (${priceOf(PRICE.amount)})`,
  outputSchema: { orderId: 'string', credited: 'number', credits: 'number' },
  mppModes: ['pull'],
  product: (_deps: VenueDeps) => ({
    fulfil: (tx, order: TopupOrder, receipt) => creditTopup(tx, order, receipt),
  }),
})

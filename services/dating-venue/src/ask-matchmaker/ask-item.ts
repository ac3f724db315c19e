import { definePaidItem, type PaymentReceipt } from '@agents/payments'
import type { AnyTransaction } from '@agents/service-kit/db'
import { chatMessages } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { creditUndelivered } from '../orders/credits.ts'
import { priceOf } from '../orders/paid-item-text.ts'
import { recordPaidOrder } from '../orders/record-paid-order.ts'
import { answerAsMatchmaker } from './matchmaker-answer.ts'

const PRICE = { amount: 100_000n }
export const ASK_KIND = 'agent_ask'
export const ASK_PATH = '/api/chat/ask'

export type AskOrder = { speaker: string; message: string }
export type AskFulfilment =
  | { answer: string; orderId: string }
  | { withheld: string; orderId: string }
  | { credited: number; orderId: string; error: string }

const UNDELIVERED = 'the matchmaker could not answer: the price was credited'

const answerPaid = async (
  deps: VenueDeps,
  tx: AnyTransaction,
  order: AskOrder,
  receipt: PaymentReceipt,
): Promise<AskFulfilment> => {
  const orderId = await recordPaidOrder(tx, { kind: ASK_KIND, ownerId: null }, receipt)
  const answered = await answerAsMatchmaker({ safety: deps.safety, chat: deps.chat }, order.message)
  if (answered.kind === 'withheld') return { withheld: answered.reason, orderId }
  if (answered.kind === 'unavailable') {
    const { credits } = await creditUndelivered(tx, {
      wallet: receipt.payer,
      orderId,
      amountAtomic: BigInt(receipt.amount),
    })
    return { credited: credits, orderId, error: UNDELIVERED }
  }
  await tx.insert(chatMessages).values([
    { speaker: order.speaker, role: 'human', textSealed: deps.sealer.seal(order.message) },
    { speaker: order.speaker, role: 'matchmaker', textSealed: deps.sealer.seal(answered.text) },
  ])
  return { answer: answered.text, orderId }
}

/**
 * A paid answer of the matchmaker (an agent's, or a human's past the free
 * messages and credits): written once the payment settled, with its order;
 * one the model could not give is credited to the payer.
 */
export const askItem = definePaidItem({
  kind: ASK_KIND,
  method: 'post',
  path: ASK_PATH,
  price: PRICE,
  body: 'legacy-v1',
  what: "one answer of the matchmaker to an agent (and to a human on the chat page past today's free messages and their credits)",
  description: `agent_ask: one answer of the matchmaker (${priceOf(PRICE.amount)})`,
  outputSchema: { answer: 'string', orderId: 'string' },
  product: (deps: VenueDeps) => ({
    fulfil: (tx, order: AskOrder, receipt) => answerPaid(deps, tx, order, receipt),
  }),
})

import { createHash } from 'node:crypto'
import { type PaymentReceipt, type Product, sellOnce } from '@agents/payments'
import type { AnyTransaction } from '@agents/service-kit/db'
import type { VenueDeps } from '../deps.ts'
import { CREDITS_PER_MESSAGE, creditBalance, creditsFor, creditUndelivered } from './credits.ts'
import { recordPaidOrder } from './record-paid-order.ts'

/** The chat top-up: 2.00 USDC, sold only to the signed-in wallet, in pull mode. */
export const TOPUP_PRICE = { amount: 2_000_000n }
export const TOPUP_KIND = 'chat_topup'
export const TOPUP_PATH = '/api/chat/topup'

/**
 * What a top-up buys: 25 credits per USDC (50), spent 3 a message, so 16
 * messages with 2 credits over. The spec says "15 messages per top-up"; the
 * venue gives at least that and keeps one rate for credits however they were
 * earned (top-ups, refunds), so a refund credit and a bought one are worth
 * the same message.
 */
export const TOPUP_CREDITS = creditsFor(TOPUP_PRICE.amount)
export const TOPUP_MESSAGES = Math.floor(TOPUP_CREDITS / CREDITS_PER_MESSAGE)

export const TOPUP_ERRORS = {
  notYourWallet:
    'pay from the signed-in wallet: this payment is signed by another wallet (nothing was charged)',
} as const

type TopupOrder = { wallet: string }
export type TopupFulfilment = {
  orderId: string
  credited: number
  credits: number
  messages: number
}

/**
 * What a top-up payment may pay for: this wallet's top-up in this session.
 * A retry of the same payment in the session gets the same answer; the same
 * payment shown from another session is "already used" (it credited once).
 * Only a hash of the session's secret is kept.
 */
export const topupRequestKey = (wallet: string, sessionSecret: string) =>
  `topup:${wallet.toLowerCase()}:${createHash('sha256').update(sessionSecret).digest('hex').slice(0, 32)}`

/** Credits the paying wallet once per payment, with the order and its revenue. */
export const topupProduct = (): Product<TopupOrder, TopupFulfilment> => ({
  kind: TOPUP_KIND,
  fulfil: (tx, order, receipt) => creditTopup(tx, order, receipt),
  answer: (fulfilment) => Response.json({ ok: true, ...fulfilment }),
})

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

const sameWallet = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

/**
 * Sells a top-up to a signed-in adult (checked by the route before this).
 * Pull mode on both rails, so the payment itself proves the wallet: x402's
 * EIP-3009 authorization is signed by its `from`, and an MPP pull
 * transaction by its sender, which this server broadcasts. Any other payer
 * is refused with 403 before anything is recorded, verified or moved.
 */
export const sellTopup = (
  deps: Pick<VenueDeps, 'payments'>,
  { wallet, sessionSecret, request }: { wallet: string; sessionSecret: string; request: Request },
) =>
  sellOnce(deps.payments, request, {
    price: TOPUP_PRICE,
    resource: {
      url: TOPUP_PATH,
      description: `chat_topup: ${TOPUP_CREDITS} chat credits (${TOPUP_MESSAGES} messages) for the signed-in wallet (2.00 USDC)`,
      outputSchema: { orderId: 'string', credited: 'number', credits: 'number' },
    },
    body: 'legacy-v1',
    product: topupProduct(),
    order: { wallet: wallet.toLowerCase() },
    requestKey: topupRequestKey(wallet, sessionSecret),
    mppModes: ['pull'],
    payer: (payer) =>
      sameWallet(payer, wallet)
        ? undefined
        : Response.json({ error: TOPUP_ERRORS.notYourWallet }, { status: 403 }),
  })

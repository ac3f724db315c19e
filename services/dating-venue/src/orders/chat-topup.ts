import { createHash } from 'node:crypto'
import { type SaleAnswer, type SaleOutcome, sellItem } from '@agents/payments'
import { refusal } from '@agents/service-kit'
import type { VenueDeps } from '../deps.ts'
import { type TopupFulfilment, topupItem } from './topup-item.ts'

export const TOPUP_ERRORS = {
  notYourWallet:
    'pay from the signed-in wallet: this payment is signed by another wallet (nothing was charged)',
} as const

/**
 * What a top-up payment may pay for: this wallet's top-up in this session.
 * A retry of the same payment in the session gets the same answer; the same
 * payment shown from another session is "already used" (it credited once).
 * Only a hash of the session's secret is kept.
 */
export const topupRequestKey = (wallet: string, sessionSecret: string) =>
  `topup:${wallet.toLowerCase()}:${createHash('sha256').update(sessionSecret).digest('hex').slice(0, 32)}`

const sameWallet = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

/**
 * Sells a top-up to a signed-in adult (checked by the route before this).
 * Pull mode on both rails, so the payment itself proves the wallet: x402's
 * EIP-3009 authorization is signed by its `from`, and an MPP pull
 * transaction by its sender, which this server broadcasts. Any other payer
 * is refused with 403 before anything is recorded, verified or moved.
 */
export const sellTopup = (
  deps: VenueDeps,
  { wallet, sessionSecret, request }: { wallet: string; sessionSecret: string; request: Request },
): Promise<SaleOutcome<TopupFulfilment>> =>
  sellItem(deps, request, topupItem, {
    order: { wallet: wallet.toLowerCase() },
    requestKey: topupRequestKey(wallet, sessionSecret),
    payer: (payer) =>
      sameWallet(payer, wallet) ? undefined : refusal(403, TOPUP_ERRORS.notYourWallet),
  })

/** How a top-up is answered: the order, what it credited and the balance after it. */
export const topupAnswer = (fulfilment: TopupFulfilment): SaleAnswer => ({
  status: 200,
  body: { ok: true, ...fulfilment },
})

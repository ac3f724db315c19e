import type { Refusal } from '@agents/service-kit'
import type { PaymentChallenge } from './challenge.ts'
import type { PaymentReason } from './errors.ts'
import type { HoldAnswer } from './sale-answer.ts'
import type { PaymentReceipt } from './types.ts'

/** Why a payment was not accepted: a stable reason and a sentence for the payer. */
export type PaymentRefusal = { reason: PaymentReason; detail: string }

/**
 * How a sale ended, as data; only the route (through `saleResponse`) turns
 * it into HTTP, as x402's HTTP server core leaves HTTP to its adapters.
 * - `challenge`: no payment; the 402 of every configured rail.
 * - `refused`: the payment was refused (nothing moved); the 402 with why.
 * - `payer-refused`, `hold-refused`: the route's payer check or the
 *   product's hold said no, before any money moved.
 * - `pending`: another request is settling this payment (`busy`) or its
 *   outcome is not known yet (`unknown`): retry with the same payment.
 * - `delivered`: paid and delivered (now or by an earlier request of the
 *   same payment), with the rail's receipt header.
 */
export type SaleOutcome<fulfilment = unknown> =
  | { type: 'challenge'; challenge: PaymentChallenge }
  | ({ type: 'refused'; challenge: PaymentChallenge } & PaymentRefusal)
  | { type: 'payer-refused'; refusal: Refusal }
  | { type: 'hold-refused'; refusal: HoldAnswer }
  | { type: 'pending'; reference: string; why: 'busy' | 'unknown'; retryAfter: number }
  | {
      type: 'delivered'
      fulfilment: fulfilment
      receipt: PaymentReceipt
      /** The rail's receipt header, the same on the first answer and on every retry. */
      receiptHeader: [string, string]
    }

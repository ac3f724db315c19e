import type { Refusal } from '@agents/service-kit'
import type { LedgerTx } from './ledger/ledger.ts'
import type { MppModes } from './mpp/create-mpp-adapter.ts'
import type { HoldAnswer } from './sale-answer.ts'
import type { PaymentReceipt, Price, Resource } from './types.ts'

/**
 * What a paid route sells, described once so that a request and the
 * reconciler deliver it the same way. Every function that takes `tx` runs
 * inside the ledger's transaction: what it writes commits together with the
 * ledger's record of it, or not at all. How a fulfilment is answered is the
 * route's (`saleResponse`'s `answer`), not the product's.
 */
export type SaleProduct<order, fulfilment> = {
  /** Stable name stored with each payment; the reconciler finds the product by it. */
  kind: string
  /**
   * Reserves what is sold, in the claim's transaction (the swap rail's match
   * lease). A refusal (or the answer an earlier payment bought) ends the
   * sale before any money moves.
   */
  hold?: (tx: LedgerTx, order: order, reference: string) => Promise<HoldAnswer | undefined>
  /** Gives the reservation back: the payment failed and nothing moved. */
  release?: (tx: LedgerTx, order: order, reference: string) => Promise<void>
  /** Delivers, at most once per payment; what it returns is kept and answers every retry. */
  fulfil: (tx: LedgerTx, order: order, receipt: PaymentReceipt) => Promise<fulfilment>
}

// biome-ignore lint/suspicious/noExplicitAny: a registry of products of any order and fulfilment
export type AnyProduct = SaleProduct<any, any>

/** What the reconciler needs of a product: its kind, and how it delivers and gives back. */
export type ReconciledProduct = Pick<AnyProduct, 'kind' | 'release' | 'fulfil'>

/** What a route charges and how its 402 reads, without what is sold: what `verifyAhead` needs. */
export type SaleTerms = {
  price: Price
  resource: Resource
  /** The 402 body: the venue's legacy v1 challenge, or `{ error }` only. */
  body?: 'legacy-v1' | 'minimal'
  /** How MPP may pay this route (e.g. `['pull']`); the adapter's default (push) when absent. */
  mppModes?: MppModes
}

export type SellParameters<order, fulfilment> = SaleTerms & {
  product: SaleProduct<order, fulfilment>
  /** What to deliver (JSON): stored with the payment so the reconciler can deliver it. */
  order: order
  /** What the payment is for (a match id, a hash of the request body): a retry must present the same. */
  requestKey: string
  /**
   * Checks the paying wallet before anything is recorded or moved; a refusal
   * refuses the payment. Only meaningful where the payer's own signature is
   * what gets settled: x402 (the EIP-3009 `from`, its signature checked by
   * the facilitator) and MPP pull (the signer recovered from the transaction).
   * An MPP push payer is only the credential's claim, and has paid already.
   */
  payer?: (payer: string) => Refusal | undefined
}

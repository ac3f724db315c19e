import type { Refusal } from '@agents/service-kit'
import type { SaleOutcome } from '../sale-outcome.ts'
import type { SaleProduct } from '../sale-product.ts'
import { sell } from '../sell.ts'
import type { PaidItem, PaidItemDeps } from './define-paid-item.ts'
import { type SaleTermsOverrides, saleTermsOf } from './sale-terms-of.ts'

export type SellItemParameters<order, fulfilment = unknown> = SaleTermsOverrides & {
  /** What to deliver (JSON): stored with the payment so the reconciler can deliver it. */
  order: order
  /** What the payment is for: a retry must present the same. */
  requestKey: string
  /** Checks the paying wallet before anything is recorded or moved (see `SellParameters`). */
  payer?: (payer: string) => Refusal | undefined
  /**
   * This request's hooks instead of the item's, when they carry what the
   * request prepared (the venue's report, written while the payment settles);
   * the kind stays the item's, and the reconciler delivers with the item's own.
   */
  hooks?: Omit<SaleProduct<order, fulfilment>, 'kind'>
}

/**
 * Sells one request of a declared item: `sell` with the item's price,
 * resource (its path on `deps.baseUrl()`), 402 body, MPP modes and product.
 * The route answers the outcome (`saleResponse`).
 *
 * @example
 * const outcome = await sellItem(deps, c.req.raw, matchItem, { order: { matchId }, requestKey: `match:${matchId}`, price })
 * return saleResponse(outcome, { answer: (paid) => ({ status: 200, body: paid }) })
 */
export const sellItem = <deps extends PaidItemDeps, order, fulfilment>(
  deps: deps,
  request: Request,
  item: PaidItem<deps, order, fulfilment>,
  { order, requestKey, payer, hooks, ...overrides }: SellItemParameters<order, fulfilment>,
): Promise<SaleOutcome<fulfilment>> =>
  sell(deps.payments, request, {
    ...saleTermsOf(item, { ...overrides, baseUrl: deps.baseUrl() }),
    product: hooks ? { ...hooks, kind: item.kind } : item.product(deps),
    order,
    requestKey,
    ...(payer ? { payer } : {}),
  })

// Temporary: removed when the venue moves to PAID_ITEMS (issue 30). The
// venue's routes still call `sellOnce` with products that answer with a
// Response; this file keeps that shape on top of `sell` and `saleResponse`.
// New code uses `definePaidItem`, `sellItem` (or `sell`) and `saleResponse`.
import type { SQL } from 'drizzle-orm'
import type { LedgerTx } from './ledger/ledger.ts'
import type { PaymentsDeps } from './payments-deps.ts'
import type { ProductRefusal } from './product-refusal.ts'
import type { SaleProduct, SaleTerms } from './sale-product.ts'
import { saleResponse } from './sale-response.ts'
import { sell } from './sell.ts'
import type { PaymentReceipt } from './types.ts'

/**
 * The old product shape, exported as `Product` until the venue moves to
 * PAID_ITEMS: its hold refuses with a Response and it answers itself.
 * Temporary: removed when the venue moves to PAID_ITEMS.
 */
export type LegacyProduct<order, fulfilment> = {
  kind: string
  hold?: (tx: LedgerTx, order: order, reference: string) => Promise<Response | undefined>
  /** @deprecated Ignored: the at-once path was removed (issue 30's benchmark); `hold` holds. */
  holdAtOnce?: (order: order, reference: string, claimed: SQL) => SQL
  release?: (tx: LedgerTx, order: order, reference: string) => Promise<void>
  fulfil: (tx: LedgerTx, order: order, receipt: PaymentReceipt) => Promise<fulfilment>
  /** @deprecated Ignored: the at-once path was removed (issue 30's benchmark); `fulfil` delivers. */
  fulfilAtOnce?: (
    order: order,
    receipt: PaymentReceipt,
  ) => Promise<{ fulfilment: fulfilment; writes: (paid: SQL) => SQL } | undefined>
  answer: (fulfilment: fulfilment, receipt: PaymentReceipt) => Response | Promise<Response>
}

/** `sellOnce`'s parameters. Temporary: removed when the venue moves to PAID_ITEMS. */
export type LegacySellParameters<order, fulfilment> = SaleTerms & {
  product: LegacyProduct<order, fulfilment>
  order: order
  requestKey: string
  payer?: (payer: string) => Response | undefined
}

/**
 * `sell` answered as HTTP, for products of the old shape: the same bytes as
 * before (a hold's or payer check's own Response is passed on untouched).
 * Temporary: removed when the venue moves to PAID_ITEMS.
 */
export const sellOnce = async <order, fulfilment>(
  deps: PaymentsDeps,
  request: Request,
  { product, payer, ...terms }: LegacySellParameters<order, fulfilment>,
): Promise<Response> => {
  let refusedWith: Response | undefined
  const keep = (response: Response): ProductRefusal => {
    refusedWith = response
    return { status: response.status, body: null }
  }
  const { hold, release, fulfil } = product
  const saleProduct: SaleProduct<order, fulfilment> = {
    kind: product.kind,
    fulfil,
    ...(hold
      ? {
          hold: async (tx, order, reference) => {
            const refused = await hold(tx, order, reference)
            return refused && keep(refused)
          },
        }
      : {}),
    ...(release ? { release } : {}),
  }
  const outcome = await sell(deps, request, {
    ...terms,
    product: saleProduct,
    ...(payer
      ? {
          payer: (wallet: string) => {
            const refused = payer(wallet)
            return refused && keep(refused)
          },
        }
      : {}),
  })
  if ((outcome.type === 'hold-refused' || outcome.type === 'payer-refused') && refusedWith)
    return refusedWith
  return saleResponse(outcome, { answer: product.answer })
}

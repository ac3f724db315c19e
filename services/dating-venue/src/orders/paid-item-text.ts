import type { AnyPaidItem } from '@agents/payments'
import { formatUsdc } from './usdc.ts'

/** An amount as people read it: `5.00 USDC`. */
export const priceOf = (amount: bigint) => `${formatUsdc(amount)} USDC`

/** A paid item's price as its documents say it (`1.00 USDC`), from its declaration. */
export const itemPrice = (item: AnyPaidItem) => {
  if (!item.price) throw new Error(`${item.kind}: the venue prices every item in its declaration`)
  return priceOf(item.price.amount)
}

/** What buyers call an item: its name, else its ledger kind. */
export const itemName = (item: AnyPaidItem) => item.name ?? item.kind

/** An item and its price for a summary or a document: `doc_submit 1.00 USDC`. */
export const paidNote = (item: AnyPaidItem) => `${itemName(item)} ${itemPrice(item)}`

/** An item's route as documents write it: `POST /api/intake/heart-file`. */
export const itemRoute = (item: AnyPaidItem) => `${item.method.toUpperCase()} ${item.path}`

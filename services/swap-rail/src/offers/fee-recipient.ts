import { pgArray } from '@agents/service-kit/db'
import { sql } from 'drizzle-orm'
import { type Address, isAddressEqual, zeroAddress } from 'viem'
import type { OfferRow } from '../db/schema.ts'
import type { SwapDeps } from '../deps.ts'
import { splitAddress, splitFor } from '../split/split-address.ts'

type SplitOf = Pick<OfferRow, 'payTo' | 'feeBps' | 'splitAddress'>

/**
 * The fee recipient in an offer's split, told by rebuilding the split for
 * `recipient` (CREATE2, about 0.15 ms): `recipient` when the split is its
 * split, else the zero address (another recipient, not known).
 */
export const splitFeeRecipient = (offer: SplitOf, recipient: Address): Address =>
  isAddressEqual(
    splitAddress(
      splitFor({ seller: offer.payTo as Address, feeRecipient: recipient, feeBps: offer.feeBps }),
    ),
    offer.splitAddress as Address,
  )
    ? recipient
    : zeroAddress

/**
 * Fills `feeRecipient` on the offers posted before it was stored (null),
 * for the hub's fee recipient in force, and writes it back in one statement
 * so that each offer's split is rebuilt once. New offers store it when made.
 */
export const fillFeeRecipients = async (
  deps: Pick<SwapDeps, 'database' | 'fee'>,
  rows: OfferRow[],
): Promise<OfferRow[]> => {
  const missing = rows.filter((row) => row.feeRecipient === null)
  if (missing.length === 0) return rows
  const found = new Map(
    missing.map((row) => [row.id, splitFeeRecipient(row, deps.fee.recipient)] as const),
  )
  await deps.database.db.execute(sql`
    UPDATE swap_offers o SET fee_recipient = f.recipient
    FROM unnest(${pgArray([...found.keys()])}::uuid[], ${pgArray([...found.values()])}::text[])
      AS f(id, recipient)
    WHERE o.id = f.id AND o.fee_recipient IS NULL`)
  return rows.map((row) => (found.has(row.id) ? { ...row, feeRecipient: found.get(row.id)! } : row))
}

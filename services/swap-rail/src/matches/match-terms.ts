import type { Price } from '@agents/payments'
import type { Address } from 'viem'
import type { MatchRow, OfferRow } from '../db/schema.ts'

const BPS = 10_000n

/**
 * The seller's share and the hub's fee of a gross amount. The seller's
 * share is rounded down, so the fee carries the rounding: the same figures
 * whether the buyer pays the Base split or the Tempo split.
 */
export const feeTerms = (gross: bigint, feeBps: number) => {
  const sellerNet = (gross * (BPS - BigInt(feeBps))) / BPS
  return { sellerNet, fee: gross - sellerNet }
}

/**
 * What paying a match costs and who is paid: on Base (x402) the gross goes
 * to the seller's split contract, which fans it out on `distribute`; on
 * Tempo (MPP push) the gross goes to the hub's fee recipient with the
 * seller's share split out to the seller's payTo in the same payment.
 */
export const matchPrice = (match: MatchRow, offer: OfferRow, feeRecipient: Address): Price => {
  const { sellerNet } = feeTerms(match.grossAtomic, match.feeBps)
  const sameParty = offer.payTo.toLowerCase() === feeRecipient.toLowerCase()
  return {
    amount: match.grossAtomic,
    payTo: match.splitAddress,
    ...(sameParty || sellerNet === 0n
      ? {}
      : { splits: [{ recipient: offer.payTo as Address, amount: sellerNet }] }),
  }
}

export const payPath = (matchId: string) => `/v1/matches/${matchId}/pay`

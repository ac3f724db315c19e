import { type Address, getAddress, isAddressEqual } from 'viem'

/** `SplitV2Lib.PERCENTAGE_SCALE`: allocations are on a 1e6 scale (100 % = 1_000_000). */
export const SPLIT_TOTAL_ALLOCATION = 1_000_000n

const BPS_SCALE = 10_000

/** `SplitV2Lib.Split`: the struct hashed into a split's address and passed to `distribute`. */
export type Split = {
  recipients: readonly Address[]
  allocations: readonly bigint[]
  totalAllocation: bigint
  /** Distributor reward on the 1e6 scale (uint16); the hub's splits pay none. */
  distributionIncentive: number
}

export type SellerSplitParameters = { seller: Address; feeRecipient: Address; feeBps: number }

/**
 * The split the hub makes for a seller's payTo, as the hub builds it
 * (`services/swap-rail/src/split/`): `feeBps` of each distribution to the
 * hub's fee recipient, the rest to the seller, recipients sorted ascending,
 * zero allocations dropped, no distributor incentive.
 *
 * @example sellerSplit({ seller, feeRecipient, feeBps: 100 }) // seller 990_000, hub 10_000
 */
export const sellerSplit = ({ seller, feeRecipient, feeBps }: SellerSplitParameters): Split => {
  if (!Number.isInteger(feeBps) || feeBps < 0 || feeBps > BPS_SCALE)
    throw new RangeError(`feeBps must be an integer in [0, ${BPS_SCALE}], got ${feeBps}`)
  const fee = BigInt(feeBps) * (SPLIT_TOTAL_ALLOCATION / BigInt(BPS_SCALE))
  const shares = isAddressEqual(seller, feeRecipient)
    ? [{ recipient: seller, allocation: SPLIT_TOTAL_ALLOCATION }]
    : [
        { recipient: seller, allocation: SPLIT_TOTAL_ALLOCATION - fee },
        { recipient: feeRecipient, allocation: fee },
      ]
  // The order is hashed into the address: the hub sorts ascending, so must we.
  const sorted = shares
    .filter(({ allocation }) => allocation > 0n)
    .map(({ recipient, allocation }) => ({ recipient: getAddress(recipient), allocation }))
    .sort((a, b) => (BigInt(a.recipient) < BigInt(b.recipient) ? -1 : 1))
  return {
    recipients: sorted.map(({ recipient }) => recipient),
    allocations: sorted.map(({ allocation }) => allocation),
    totalAllocation: SPLIT_TOTAL_ALLOCATION,
    distributionIncentive: 0,
  }
}

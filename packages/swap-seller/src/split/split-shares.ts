import type { Split } from './seller-split.ts'

/**
 * What `PushSplit.distribute(split, token, distributor)` pays each recipient
 * from a split holding `balance` of an ERC-20 (nothing in the warehouse): it
 * keeps 1 unit back (a warm storage slot), pays no incentive here, and pays
 * each recipient `amount * allocation / total` rounded down. The rest
 * (`dust`) stays for the next distribution.
 *
 * @example splitShares(split, 1_000_000n) // { shares: [989_999n, 9_999n], dust: 2n }
 */
export const splitShares = (split: Split, balance: bigint) => {
  const amount = balance > 0n ? balance - 1n : 0n
  const reward = (amount * BigInt(split.distributionIncentive)) / split.totalAllocation
  const shares = split.allocations.map(
    (allocation) => ((amount - reward) * allocation) / split.totalAllocation,
  )
  const paid = shares.reduce((sum, share) => sum + share, 0n)
  return { shares, reward, dust: balance - reward - paid }
}

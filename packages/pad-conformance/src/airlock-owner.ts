const WAD = 10n ** 18n
/** BeneficiaryData.sol's MIN_PROTOCOL_OWNER_SHARES. */
export const MIN_OWNER_SHARES = WAD / 20n

type Beneficiary = { beneficiary: string; shares: string }

/**
 * Generated beneficiary lists made into ones Doppler's chain accepts, the
 * item count kept: the Airlock owner takes the first item's place when absent
 * and gets at least 5 %, the others shrink in proportion (each at least 1), the
 * total stays exactly 1e18. The generators know the knob's published shape,
 * not this rule across items, which get_capabilities states as `airlockOwners`.
 */
export const withAirlockOwner = (owner: string, items: Beneficiary[]): Beneficiary[] => {
  if (items.length === 0) return items
  const list = items.some((item) => BigInt(item.beneficiary) === BigInt(owner))
    ? items
    : [{ ...items[0]!, beneficiary: owner }, ...items.slice(1)]
  const others = list.filter((item) => BigInt(item.beneficiary) !== BigInt(owner))
  const total = others.reduce((sum, item) => sum + BigInt(item.shares), 0n)
  const room = WAD - MIN_OWNER_SHARES - BigInt(others.length)
  const scaled = new Map(
    others.map((item) => [item, 1n + (total === 0n ? 0n : (BigInt(item.shares) * room) / total)]),
  )
  const ownerShares = WAD - [...scaled.values()].reduce((sum, shares) => sum + shares, 0n)
  return list.map((item) => ({
    ...item,
    shares: String(scaled.get(item) ?? ownerShares),
  }))
}

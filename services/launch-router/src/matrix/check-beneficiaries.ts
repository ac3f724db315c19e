import type { KnobProblem } from './check-dynamic-auction.ts'
import type { ChainId, Pad } from './pad.ts'

const WAD = 10n ** 18n
/** BeneficiaryData.sol's MIN_PROTOCOL_OWNER_SHARES: 5 % of WAD. */
export const MIN_PROTOCOL_OWNER_SHARES = WAD / 20n

type Beneficiary = { beneficiary: string; shares: string }

/**
 * Doppler's fee beneficiaries as the chain takes them: when a multicurve pool
 * is locked (any beneficiary given), the initializer calls
 * `storeBeneficiaries(..., airlock.owner(), WAD / 20)` (whetstoneresearch/doppler
 * src/types/BeneficiaryData.sol), which reverts unless the Airlock's owner is a
 * beneficiary with at least 5 % of the shares (`InvalidProtocolOwnerBeneficiary`,
 * `InvalidProtocolOwnerShares`), the addresses are strictly ascending
 * (`UnorderedBeneficiaries`: the payload sorts them, so only a repeated address
 * fails it) and the shares add up to exactly WAD (`InvalidTotalShares`, the knob's
 * `sumOf`). The router never adds the owner or moves shares itself: the user
 * decides who gives up the 5 %.
 */
export const checkBeneficiaries = (
  pad: Pad,
  knobs: Record<string, unknown>,
  { chainId }: { chainId: ChainId | undefined },
): KnobProblem[] => {
  const beneficiaries = knobs.beneficiaries as Beneficiary[] | undefined
  if (!Array.isArray(beneficiaries) || beneficiaries.length === 0) return []
  const owner = chainId === undefined ? undefined : pad.airlockOwners?.[String(chainId)]
  if (!owner) return []
  const problems: KnobProblem[] = []

  const seen = new Map<bigint, number>()
  beneficiaries.forEach((entry, index) => {
    const address = BigInt(entry.beneficiary)
    const first = seen.get(address)
    if (first !== undefined)
      problems.push({
        field: `beneficiaries.${index}.beneficiary`,
        message: `beneficiaries ${first} and ${index} name the same address ${entry.beneficiary}: Doppler requires strictly ascending, distinct addresses (UnorderedBeneficiaries()); merge them into one entry`,
      })
    else seen.set(address, index)
  })

  const ownerAddress = BigInt(owner.address)
  const ownerIndex = beneficiaries.findIndex((entry) => BigInt(entry.beneficiary) === ownerAddress)
  const minimum = `${MIN_PROTOCOL_OWNER_SHARES} (5 % of 1e18)`
  if (ownerIndex === -1)
    problems.push({
      field: 'beneficiaries',
      message: `with beneficiaries, Doppler requires the Airlock owner of chain ${chainId}, ${owner.address}, among them with at least ${minimum} shares, or the launch reverts InvalidProtocolOwnerBeneficiary(): add { "beneficiary": "${owner.address}", "shares": "${MIN_PROTOCOL_OWNER_SHARES}" } and lower the others so the shares still add up to 1000000000000000000`,
    })
  else if (BigInt(beneficiaries[ownerIndex]!.shares) < MIN_PROTOCOL_OWNER_SHARES)
    problems.push({
      field: `beneficiaries.${ownerIndex}.shares`,
      message: `the Airlock owner ${owner.address} must get at least ${minimum} shares (got ${beneficiaries[ownerIndex]!.shares}), or the launch reverts InvalidProtocolOwnerShares`,
    })
  return problems
}

import {
  type Address,
  concat,
  encodeAbiParameters,
  getAddress,
  getContractAddress,
  type Hex,
  isAddressEqual,
  keccak256,
  zeroAddress,
  zeroHash,
} from 'viem'

/** PushSplitFactory v2.2 on Base and every other chain (splits-v2 `deployments/8453.json`). */
export const PUSH_SPLIT_FACTORY_V2o2: Address = '0x8E8eB0cC6AE34A38B67D5Cf91ACa38f60bc3Ecf4'

/** SplitsWarehouse (splits-v2 `deployments/8453.json`); PushSplit only pulls from it on distribute. */
export const SPLITS_WAREHOUSE: Address = '0x8fb66F38cF86A3d5e8768f8F1754A24A6c661Fb8'

/**
 * The factory's `SPLIT_WALLET_IMPLEMENTATION`: its constructor's only `new PushSplit(...)`, i.e.
 * CREATE from the factory at nonce 1 (EIP-161). Also named in splits-v2
 * `script/verify-contract.sh` and in @0xsplits/splits-sdk as `PUSH_SPLIT_V2o2_ADDRESS`.
 */
export const PUSH_SPLIT_V2o2_IMPLEMENTATION: Address = '0x1e2086A7e84a32482ac03000D56925F607CCB708'

/** `SplitV2Lib.PERCENTAGE_SCALE`; also the SDK's default `totalAllocation` (100% = 1e6). */
export const SPLIT_TOTAL_ALLOCATION = 1_000_000n

/** Fees are configured in basis points; one bp is 100 allocation units on the 1e6 scale. */
const BPS_SCALE = 10_000

/** `SplitV2Lib.Split`, the struct hashed into the salt and stored as the split's `splitHash`. */
export type Split = {
  recipients: readonly Address[]
  allocations: readonly bigint[]
  totalAllocation: bigint
  /** Distributor reward on the 1e6 scale (uint16). */
  distributionIncentive: number
}

export type SplitForParameters = { seller: Address; feeRecipient: Address; feeBps: number }

/**
 * The immutable seller/hub PushSplit for one payTo: `feeBps` of each distribution to
 * `feeRecipient`, the rest to `seller`. Recipients are sorted ascending and zero allocations
 * dropped, so `feeBps = 0`, `feeBps = 10_000` or `seller == feeRecipient` give one recipient.
 *
 * @example
 * splitFor({ seller, feeRecipient: hub, feeBps: 250 }) // seller 975_000, hub 25_000
 */
export const splitFor = ({ seller, feeRecipient, feeBps }: SplitForParameters): Split => {
  if (!Number.isInteger(feeBps) || feeBps < 0 || feeBps > BPS_SCALE)
    throw new Error(`feeBps must be an integer in [0, ${BPS_SCALE}], got ${feeBps}`)
  const fee = BigInt(feeBps) * (SPLIT_TOTAL_ALLOCATION / BigInt(BPS_SCALE))
  const shares = isAddressEqual(seller, feeRecipient)
    ? [{ recipient: seller, allocation: SPLIT_TOTAL_ALLOCATION }]
    : [
        { recipient: seller, allocation: SPLIT_TOTAL_ALLOCATION - fee },
        { recipient: feeRecipient, allocation: fee },
      ]
  // The contract accepts any order, but the order is hashed into the address: fix one for good.
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

export type SplitAddressOptions = {
  factory?: Address
  /** The factory's `SPLIT_WALLET_IMPLEMENTATION`; by default its first CREATE (nonce 1). */
  implementation?: Address
  /** `zeroAddress` makes the split immutable (no `updateSplit`, no pause). */
  owner?: Address
  salt?: Hex
}

/**
 * The address `createSplitDeterministic(split, owner, creator, salt)` on the PushSplit factory
 * deploys to, computed offline; `creator` only appears in the `SplitCreated` event.
 *
 * @example
 * splitAddress(splitFor({ seller, feeRecipient, feeBps: 250 }))
 */
export const splitAddress = (
  split: Split,
  {
    factory = PUSH_SPLIT_FACTORY_V2o2,
    implementation = getContractAddress({ from: factory, nonce: 1n }),
    owner = zeroAddress,
    salt = zeroHash,
  }: SplitAddressOptions = {},
): Address =>
  getContractAddress({
    opcode: 'CREATE2',
    from: factory,
    // SplitFactoryV2._getSalt: keccak256(bytes.concat(abi.encode(_splitParams, _owner), _salt))
    salt: keccak256(concat([encodeAbiParameters(splitAndOwner, [split, owner]), salt])),
    bytecodeHash: keccak256(splitCloneInitCode(implementation)),
  })

const splitAndOwner = [
  {
    type: 'tuple',
    components: [
      { name: 'recipients', type: 'address[]' },
      { name: 'allocations', type: 'uint256[]' },
      { name: 'totalAllocation', type: 'uint256' },
      { name: 'distributionIncentive', type: 'uint16' },
    ],
  },
  { type: 'address' },
] as const

/**
 * splits-v2 `libraries/Clone.sol`: a minimal proxy whose empty-calldata path logs
 * `ReceiveETH(uint256)` instead of delegating. `cloneDeterministic` hashes 0x71 bytes from memory
 * offset 0x0f: the 98 bytes of code plus 15 bytes of the zero slot, so those zeros count.
 */
const splitCloneInitCode = (implementation: Address): Hex =>
  concat([
    '0x60593d8160093d39f3', // creation: return the 0x59-byte runtime copied from offset 9
    '0x36602c57343d527f', // no calldata: mstore(0, callvalue), push32 topic
    keccak256(new TextEncoder().encode('ReceiveETH(uint256)')),
    '0x593da1005b3d3d3d3d363d3d37363d73', // log1, stop; else copy calldata, push20
    implementation,
    '0x5af43d3d93803e605757fd5bf3', // delegatecall, bubble up return data or revert
    `0x${'00'.repeat(15)}`,
  ])

export type SplitSharesReturnType = { seller: bigint; hub: bigint; dust: bigint }

/**
 * What `PushSplit.distribute(split, token, distributor)` pays from a split holding `gross` of an
 * ERC-20 (nothing in the warehouse): it keeps 1 unit back, pays the distributor
 * `amount * incentive / 1e6` (0 here), and each recipient `amount * allocation / total` rounded
 * down. `dust` (the kept unit plus rounding) stays in the split and joins the next distribution,
 * so `gross` is the split's whole balance at distribute time. When seller and fee recipient are
 * the same address, it is all `seller`.
 *
 * @example
 * splitShares(1_000_000n, { seller, feeRecipient, feeBps: 250 }) // 974_999n, 24_999n, 2n
 */
export const splitShares = (gross: bigint, parties: SplitForParameters): SplitSharesReturnType => {
  if (gross < 0n) throw new Error(`gross must not be negative, got ${gross}`)
  const split = splitFor(parties)
  // PushSplit: `splitBalance -= uint(splitBalance > 0)`, keeping the storage slot warm.
  const amount = gross > 0n ? gross - 1n : 0n
  const reward = (amount * BigInt(split.distributionIncentive)) / SPLIT_TOTAL_ALLOCATION
  const paid = (recipient: Address) => {
    const index = split.recipients.findIndex((one) => isAddressEqual(one, recipient))
    if (index < 0) return 0n
    return ((amount - reward) * split.allocations[index]!) / split.totalAllocation
  }
  const seller = paid(parties.seller)
  const hub = isAddressEqual(parties.seller, parties.feeRecipient) ? 0n : paid(parties.feeRecipient)
  return { seller, hub, dust: gross - reward - seller - hub }
}

import {
  PUSH_SPLIT_V2o2_ADDRESS,
  PUSH_SPLIT_V2o2_FACTORY_ADDRESS,
} from '@0xsplits/splits-sdk/constants'
import {
  type Address,
  concat,
  encodeAbiParameters,
  getContractAddress,
  type Hex,
  keccak256,
  zeroAddress,
  zeroHash,
} from 'viem'
import type { Split } from './seller-split.ts'

/** The hub's splits: PushSplit v2.2, no owner (immutable), salt zero. */
export const SPLIT_FACTORY: Address = PUSH_SPLIT_V2o2_FACTORY_ADDRESS
export const SPLIT_OWNER: Address = zeroAddress
export const SPLIT_SALT: Hex = zeroHash

/**
 * The address `createSplitDeterministic(split, owner, creator, salt)` on the
 * 0xSplits PushSplit v2.2 factory deploys to, computed offline (the SDK's
 * `predictDeterministicAddress` asks the factory over RPC). Funds sent there
 * before the split exists wait for it.
 *
 * @example predictSplitAddress(sellerSplit({ seller, feeRecipient, feeBps: 100 }))
 */
export const predictSplitAddress = (split: Split): Address =>
  getContractAddress({
    opcode: 'CREATE2',
    from: SPLIT_FACTORY,
    // SplitFactoryV2._getSalt: keccak256(bytes.concat(abi.encode(split, owner), salt))
    salt: keccak256(concat([encodeAbiParameters(splitAndOwner, [split, SPLIT_OWNER]), SPLIT_SALT])),
    bytecodeHash: keccak256(cloneInitCode(PUSH_SPLIT_V2o2_ADDRESS)),
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
 * splits-v2 `libraries/Clone.sol`'s init code: a minimal proxy whose
 * empty-calldata path logs `ReceiveETH(uint256)`. `cloneDeterministic` hashes
 * 0x71 bytes, the 98 bytes of code plus 15 zero bytes, so the zeros count.
 */
const cloneInitCode = (implementation: Address): Hex =>
  concat([
    '0x60593d8160093d39f3',
    '0x36602c57343d527f',
    keccak256(new TextEncoder().encode('ReceiveETH(uint256)')),
    '0x593da1005b3d3d3d3d363d3d37363d73',
    implementation,
    '0x5af43d3d93803e605757fd5bf3',
    `0x${'00'.repeat(15)}`,
  ])

import { PUSH_SPLIT_V2o2_FACTORY_ADDRESS } from '@0xsplits/splits-sdk/constants'
import { splitV2ABI, splitV2o2FactoryAbi } from '@0xsplits/splits-sdk/constants/abi'
import { type Address, encodeFunctionData, type Hex } from 'viem'
import { SPLIT_OWNER, SPLIT_SALT } from './predict-split-address.ts'
import type { Split } from './seller-split.ts'

/** An unsigned transaction for the seller's own wallet: no nonce, gas or signature. */
export type UnsignedTransaction = {
  chainId: number
  to: Address
  data: Hex
  value: '0'
  description: string
}

export type BuildCollectTransactionsParameters = {
  chainId: number
  split: Split
  splitAddress: Address
  /** Whether the split has code yet: when not, the create comes first. */
  created: boolean
  token: Address
  /** Who calls distribute (the seller's wallet); with no incentive it is only logged. */
  distributor: Address
}

/**
 * The unsigned transactions that pay out a seller's split, encoded with the
 * 0xSplits SDK's published ABIs: `createSplitDeterministic` on the PushSplit
 * v2.2 factory when the split has no code yet, then `distribute(split, token,
 * distributor)` on the split. Anyone may send either.
 *
 * @example buildCollectTransactions({ chainId: 8453, split, splitAddress, created: false, token: usdc, distributor: payTo })
 */
export const buildCollectTransactions = ({
  chainId,
  split,
  splitAddress,
  created,
  token,
  distributor,
}: BuildCollectTransactionsParameters): UnsignedTransaction[] => {
  const transactions: UnsignedTransaction[] = []
  if (!created)
    transactions.push({
      chainId,
      to: PUSH_SPLIT_V2o2_FACTORY_ADDRESS,
      data: encodeFunctionData({
        abi: splitV2o2FactoryAbi,
        functionName: 'createSplitDeterministic',
        args: [split, SPLIT_OWNER, distributor, SPLIT_SALT],
      }),
      value: '0',
      description: `create the split ${splitAddress} (0xSplits PushSplit v2.2, immutable)`,
    })
  transactions.push({
    chainId,
    to: splitAddress,
    data: encodeFunctionData({
      abi: splitV2ABI,
      functionName: 'distribute',
      args: [split, token, distributor],
    }),
    value: '0',
    description: `distribute the split's ${token} balance to its recipients`,
  })
  return transactions
}

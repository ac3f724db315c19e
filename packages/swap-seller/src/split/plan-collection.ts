import { type Address, erc20Abi, getAddress, isAddressEqual, type PublicClient } from 'viem'
import { buildCollectTransactions, type UnsignedTransaction } from './build-collect-transactions.ts'
import { getSellerOffers } from './get-seller-offers.ts'
import { predictSplitAddress } from './predict-split-address.ts'
import { sellerSplit } from './seller-split.ts'
import { splitShares } from './split-shares.ts'

export type PlanCollectionDeps = { client: PublicClient; fetch?: typeof fetch }

export type PlanCollectionParameters = {
  hubUrl: string
  payTo: string
  /** The hub's fee recipient, when the hub's offers do not carry it. */
  feeRecipient?: string | undefined
  /** USDC on Base unless given. */
  token: Address
}

/** One split of the seller's (one per fee setting the hub has used), and how to pay it out. */
export type SplitPlan = {
  splitAddress: Address
  feeBps: number
  feeRecipient: Address
  offers: string[]
  recipients: { address: Address; allocation: string; payout: string }[]
  created: boolean
  balance: string
  dust: string
  transactions: (UnsignedTransaction & { estimatedGas: string | null })[]
  /** The chain's gas price when read (wei); times `estimatedGas` is the L2 execution fee. */
  gasPrice: string
}

export const CollectionProblem = {
  noOffers: 'no_offers',
  feeRecipientUnknown: 'fee_recipient_unknown',
  splitMismatch: 'split_mismatch',
} as const
export type CollectionProblem = (typeof CollectionProblem)[keyof typeof CollectionProblem]

export type PlanCollectionReturnType =
  | { ok: true; payTo: Address; chainId: number; token: Address; splits: SplitPlan[] }
  | { ok: false; reason: CollectionProblem; detail: string }

/**
 * Everything a seller needs to collect: from the hub's public offers of
 * `payTo`, each split's terms; the split rebuilt locally and its address
 * checked against the hub's; its code and token balance read over RPC; and
 * the unsigned create/distribute transactions. Reads only; signs nothing.
 *
 * @example await planCollection({ client }, { hubUrl, payTo, feeRecipient, token: usdc })
 */
export const planCollection = async (
  { client, fetch: fetchImpl = globalThis.fetch }: PlanCollectionDeps,
  { hubUrl, payTo, feeRecipient, token }: PlanCollectionParameters,
): Promise<PlanCollectionReturnType> => {
  const seller = getAddress(payTo)
  const offers = await getSellerOffers({ fetch: fetchImpl }, { hubUrl, payTo: seller })
  if (offers.length === 0)
    return { ok: false, reason: 'no_offers', detail: `the hub lists no offer paying ${seller}` }

  const bySplit = new Map<Address, typeof offers>()
  for (const offer of offers) {
    const key = getAddress(offer.splitAddress)
    bySplit.set(key, [...(bySplit.get(key) ?? []), offer])
  }
  const chainId = await client.getChainId()
  const splits: SplitPlan[] = []
  for (const [hubSplit, group] of bySplit) {
    const [first] = group as [(typeof offers)[number]]
    // An explicit fee recipient wins; a wrong one cannot pass the split check below.
    const recipient = feeRecipient ?? first.feeRecipient
    if (!recipient)
      return {
        ok: false,
        reason: 'fee_recipient_unknown',
        detail: "the hub's offers do not name its fee recipient: pass --fee-recipient",
      }
    const split = sellerSplit({
      seller,
      feeRecipient: getAddress(recipient),
      feeBps: first.feeBps,
    })
    const splitAddress = predictSplitAddress(split)
    // The kit's rebuild must land on the hub's address, or the money is elsewhere.
    if (!isAddressEqual(splitAddress, hubSplit))
      return {
        ok: false,
        reason: 'split_mismatch',
        detail: `the hub says ${hubSplit}, the kit computes ${splitAddress} from fee recipient ${recipient} and ${first.feeBps} bps`,
      }
    const [code, balance] = await Promise.all([
      client.getCode({ address: splitAddress }),
      client.readContract({
        address: token,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [splitAddress],
      }),
    ])
    const created = code !== undefined && code !== '0x'
    const { shares, dust } = splitShares(split, balance)
    const transactions =
      balance > 1n
        ? buildCollectTransactions({
            chainId,
            split,
            splitAddress,
            created,
            token,
            distributor: seller,
          })
        : []
    splits.push({
      splitAddress,
      feeBps: first.feeBps,
      feeRecipient: getAddress(recipient),
      offers: group.map(({ id }) => id),
      recipients: split.recipients.map((address, index) => ({
        address,
        allocation: String(split.allocations[index]),
        payout: String(shares[index]),
      })),
      created,
      balance: String(balance),
      dust: String(dust),
      transactions: await Promise.all(
        transactions.map(async (transaction) => ({
          ...transaction,
          estimatedGas: await estimate(client, seller, transaction),
        })),
      ),
      gasPrice: String(await client.getGasPrice()),
    })
  }
  return { ok: true, payTo: seller, chainId, token, splits }
}

/**
 * The node's gas estimate for one transaction sent by the seller, or null when
 * it cannot estimate it: a distribute before its split exists, or a chain
 * without the 0xSplits contracts (a local devnet).
 */
const estimate = async (client: PublicClient, from: Address, { to, data }: UnsignedTransaction) => {
  // A call to an address without code "succeeds" for the price of a transfer: no estimate at all.
  const code = await client.getCode({ address: to })
  if (code === undefined || code === '0x') return null
  return client
    .estimateGas({ account: from, to, data })
    .then(String)
    .catch(() => null)
}

import {
  type Address,
  createPublicClient,
  type Hex,
  http,
  isAddressEqual,
  type PublicClient,
  parseAbi,
  parseEventLogs,
} from 'viem'

/** What the chain is asked about an x402 EIP-3009 payment. */
export type X402Proof = {
  rail: 'x402'
  network: string
  asset: Address
  from: Address
  nonce: Hex
  /** Unix seconds: after this no one can execute the authorization. */
  validBefore: string
  version: 1 | 2
}

/** What the chain is asked about an MPP payment: the payer's own transaction. */
export type MppProof = {
  rail: 'mpp'
  chainId: number
  hash: Hex
  /**
   * Pull mode: the payer-signed transaction this server broadcasts. When its
   * broadcast's outcome was lost, it is sent again: the chain executes a
   * signed transaction at most once (same hash), so money cannot move twice.
   */
  signed?: Hex
  currency: Address
  /** Every recipient of the charge with its share (the payee and any splits), atomic units. */
  transfers: Array<{ to: Address; amount: string }>
}

/** Solana has no reader here: its unknown outcomes are settled by the payer's retry. */
export type OtherProof = { rail: 'x402'; network: string; opaque: true }

export type PaymentProof = X402Proof | MppProof | OtherProof

export type ChainAnswer =
  | { status: 'used'; transaction: string }
  /** `final`: it can never be used any more (expired authorization, reverted transaction). */
  | { status: 'unused'; final: boolean }

const usdcAbi = parseAbi([
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
])

// How far back the settling transaction's log is looked for (Base: ~2 s blocks, so about 5 h).
const LOG_WINDOW_BLOCKS = 9_000n
// How long a pull payment's pending transaction is waited for (Tempo mines in well under this).
const PULL_RECEIPT_WAIT_MS = 6_000
// A pushed transaction not found after this long will not be mined.
const MPP_GIVE_UP_MS = 60 * 60_000

export type ChainHealth = { ok: boolean; block?: string; error?: string }

export type SettlementReaderSettings = {
  /** JSON-RPC of Base (x402 EVM payments). */
  baseRpcUrl?: string | undefined
  /** JSON-RPC of Tempo (MPP). */
  tempo?: { rpcUrl: string; chainId: number } | undefined
  timeoutMs?: number
}

/**
 * Answers from the chain about payments whose settle answer was lost:
 * USDC's `authorizationState(from, nonce)` (EIP-3009) on Base, the
 * transaction receipt on Tempo. No key; the only write is re-sending a pull
 * payment's payer-signed transaction (see MppProof.signed).
 */
export const createSettlementReader = ({
  baseRpcUrl,
  tempo,
  timeoutMs = 5_000,
}: SettlementReaderSettings) => {
  const client = (url: string) =>
    createPublicClient({ transport: http(url, { timeout: timeoutMs, retryCount: 0 }) })
  const base = baseRpcUrl ? client(baseRpcUrl) : undefined
  const tempoClient = tempo ? client(tempo.rpcUrl) : undefined

  const readX402 = async (proof: X402Proof): Promise<ChainAnswer> => {
    if (proof.network !== 'eip155:8453' || !base)
      throw new Error(`no RPC configured for ${proof.network}`)
    const used = await base.readContract({
      address: proof.asset,
      abi: usdcAbi,
      functionName: 'authorizationState',
      args: [proof.from, proof.nonce],
    })
    if (used) return { status: 'used', transaction: await findSettlement(base, proof) }
    // Block time, not our clock: an authorization is dead once the chain is past validBefore.
    const block = await base.getBlock({ blockTag: 'latest' })
    return { status: 'unused', final: block.timestamp >= BigInt(proof.validBefore) }
  }

  const readMpp = async (proof: MppProof, createdAt: Date): Promise<ChainAnswer> => {
    if (!tempoClient || tempo?.chainId !== proof.chainId)
      throw new Error(`no RPC configured for Tempo chain ${proof.chainId}`)
    const readReceipt = () =>
      tempoClient.getTransactionReceipt({ hash: proof.hash }).catch((error: Error) => {
        if (error.name === 'TransactionReceiptNotFoundError') return undefined
        throw error
      })
    let receipt = await readReceipt()
    if (!receipt && proof.signed) {
      // A pull payment whose broadcast may never have arrived: send the payer's
      // transaction again (a refusal, e.g. already known or expired, changes nothing).
      await tempoClient
        .request({ method: 'eth_sendRawTransaction', params: [proof.signed] })
        .catch(() => undefined)
      // Sent now or already in the pool, it is a block or two away: wait for it (bounded)
      // rather than answer "not yet" and leave the payer's money unserved until the next pass.
      receipt = await tempoClient
        .waitForTransactionReceipt({
          hash: proof.hash,
          timeout: PULL_RECEIPT_WAIT_MS,
          pollingInterval: 200,
        })
        .catch(() => undefined)
    }
    if (!receipt)
      return { status: 'unused', final: Date.now() - createdAt.getTime() > MPP_GIVE_UP_MS }
    if (receipt.status !== 'success') return { status: 'unused', final: true }
    const paid = parseEventLogs({ abi: usdcAbi, eventName: 'Transfer', logs: receipt.logs }).filter(
      (log) => isAddressEqual(log.address, proof.currency),
    )
    const covered = proof.transfers.every(({ to, amount }) => {
      const received = paid
        .filter((log) => isAddressEqual(log.args.to, to))
        .reduce((sum, log) => sum + log.args.value, 0n)
      return received >= BigInt(amount)
    })
    return covered ? { status: 'used', transaction: proof.hash } : { status: 'unused', final: true }
  }

  return {
    /** What the chain says about a payment; throws when the chain cannot be asked. */
    read: (proof: PaymentProof, createdAt: Date): Promise<ChainAnswer> => {
      if (proof.rail === 'mpp') return readMpp(proof, createdAt)
      if ('opaque' in proof) throw new Error(`no reader for ${proof.network}`)
      return readX402(proof)
    },
    /** For /health: each configured chain's latest block, or the failure. */
    probe: async (): Promise<Record<string, ChainHealth>> => {
      const chains: Array<[string, PublicClient | undefined]> = [
        ['base', base as PublicClient | undefined],
        ['tempo', tempoClient as PublicClient | undefined],
      ]
      const entries = await Promise.all(
        chains
          .filter(([, chain]) => chain)
          .map(async ([name, chain]) => {
            try {
              const block = (await chain!.getBlockNumber({ cacheTime: 0 })).toString()
              return [name, { ok: true, block }] as [string, ChainHealth]
            } catch (error) {
              return [name, { ok: false, error: (error as Error).name }] as [string, ChainHealth]
            }
          }),
      )
      return Object.fromEntries(entries)
    },
  }
}

export type SettlementReader = ReturnType<typeof createSettlementReader>

/** The transaction that used the authorization, from USDC's AuthorizationUsed log. */
const findSettlement = async (client: PublicClient, proof: X402Proof) => {
  const latest = await client.getBlockNumber({ cacheTime: 0 })
  const logs = await client.getLogs({
    address: proof.asset,
    event: usdcAbi[1],
    args: { authorizer: proof.from, nonce: proof.nonce },
    fromBlock: latest > LOG_WINDOW_BLOCKS ? latest - LOG_WINDOW_BLOCKS : 0n,
    toBlock: latest,
  })
  return logs[0]?.transactionHash ?? ''
}

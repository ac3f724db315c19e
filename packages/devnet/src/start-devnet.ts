import type { Address, PublicClient } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { type BASE_CHAIN_ID, startBaseChain } from './chains/start-base-chain.ts'
import { type StartTempoChainReturnType, startTempoChain } from './chains/start-tempo-chain.ts'
import { createMppFetch } from './clients/create-mpp-fetch.ts'
import { createX402Fetch } from './clients/create-x402-fetch.ts'
import { signV1Payment, type V1Requirements } from './clients/sign-v1-payment.ts'
import {
  DEVNET_ADMIN,
  DEVNET_PRIVATE_KEYS,
  type DevnetAccounts,
  getDevnetAccounts,
} from './devnet-accounts.ts'
import type { FacilitatorBehavior } from './facilitator/facilitator-behavior.ts'
import { startFacilitator } from './facilitator/start-facilitator.ts'

/** USDC (6 decimals) minted to `payer` and to `payer2` on the Base devnet: 1,000,000 USDC. */
export const DEVNET_PAYER_USDC = 1_000_000_000_000n

export type Devnet = {
  base: { rpcUrl: string; chainId: typeof BASE_CHAIN_ID; usdc: Address; publicClient: PublicClient }
  tempo?: { rpcUrl: string; chainId: number; currency: Address; publicClient: PublicClient }
  facilitator: {
    url: string
    address: Address
    /** Fault switches; see {@link FacilitatorBehavior}. Set `'normal'` to end a fault. */
    setBehavior: (behavior: FacilitatorBehavior) => void
    /** How many `/settle` calls have transferred on-chain, whatever they answered. */
    settlements: () => number
  }
  accounts: DevnetAccounts
  /** The anvil process ids, e.g. to check that `stop()` ended them. */
  pids: { base: number; tempo?: number }
  usdcBalance: (address: Address) => Promise<bigint>
  tempoBalance?: (address: Address) => Promise<bigint>
  x402Fetch: (account?: PrivateKeyAccount) => typeof fetch
  signV1Payment: (requirements: V1Requirements, account?: PrivateKeyAccount) => Promise<string>
  /** Pays MPP charges: push by default, `'pull'` for a route that takes only pull. */
  mppFetch?: (account?: PrivateKeyAccount, mode?: 'push' | 'pull') => typeof fetch
  stop: () => Promise<void>
}

export type StartDevnetParameters = {
  /** Also start a Tempo anvil for MPP. */
  tempo?: boolean
}

/**
 * Starts a local payment network: an anvil posing as Base with Circle's USDC, an x402
 * facilitator settling on it, and (by default) a Tempo anvil for MPP.
 *
 * @example
 * const devnet = await startDevnet()
 * const response = await devnet.x402Fetch()(`${server.url}/paid`)
 * await devnet.stop()
 */
export const startDevnet = async ({
  tempo = true,
}: StartDevnetParameters = {}): Promise<Devnet> => {
  const accounts = getDevnetAccounts()
  const stops: (() => Promise<void>)[] = []
  const stop = async () => {
    // Reverse start order: the facilitator goes before the chain it settles on.
    for (const stopOne of stops.splice(0).reverse()) await stopOne()
  }
  const track = <T extends { stop: () => Promise<void> }>(started: T) => {
    stops.push(started.stop)
    return started
  }
  try {
    // allSettled, not all: if one chain fails, the other must finish starting (and be tracked)
    // before `stop()` below, or it would outlive the failed start.
    const [baseStart, tempoStart] = await Promise.allSettled([
      startBaseChain({
        admin: DEVNET_ADMIN,
        mints: [
          { to: accounts.payer.address, amount: DEVNET_PAYER_USDC },
          { to: accounts.payer2.address, amount: DEVNET_PAYER_USDC },
        ],
      }).then(track),
      tempo ? startTempoChain().then(track) : undefined,
    ])
    if (baseStart.status === 'rejected') throw baseStart.reason
    if (tempoStart.status === 'rejected') throw tempoStart.reason
    const base = baseStart.value
    const tempoChain = tempoStart.value
    const facilitator = track(
      await startFacilitator({
        rpcUrl: base.rpcUrl,
        chain: base.publicClient.chain!,
        privateKey: DEVNET_PRIVATE_KEYS.facilitator,
      }),
    )

    return {
      base: {
        rpcUrl: base.rpcUrl,
        chainId: base.chainId,
        usdc: base.usdc,
        publicClient: base.publicClient,
      },
      facilitator: {
        url: facilitator.url,
        address: facilitator.address,
        setBehavior: facilitator.setBehavior,
        settlements: facilitator.settlements,
      },
      accounts,
      pids: { base: base.pid, ...(tempoChain && { tempo: tempoChain.pid }) },
      usdcBalance: base.usdcBalance,
      x402Fetch: (account = accounts.payer) => createX402Fetch(base.publicClient, { account }),
      signV1Payment: (requirements, account = accounts.payer) =>
        signV1Payment(account, requirements),
      ...(tempoChain && tempoFields(tempoChain, accounts)),
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}

const tempoFields = (chain: StartTempoChainReturnType, accounts: DevnetAccounts) => ({
  tempo: {
    rpcUrl: chain.rpcUrl,
    chainId: chain.chainId,
    currency: chain.currency,
    publicClient: chain.publicClient,
  },
  tempoBalance: chain.tempoBalance,
  mppFetch: (account: PrivateKeyAccount = accounts.payer, mode: 'push' | 'pull' = 'push') =>
    createMppFetch({ account, chain: chain.chain, rpcUrl: chain.rpcUrl, mode }),
})

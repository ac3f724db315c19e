import {
  type Address,
  createPublicClient,
  createTestClient,
  erc20Abi,
  http,
  type PublicClient,
  publicActions,
  walletActions,
} from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { defineBaseDevnet } from '../chains/start-base-chain.ts'
import { defineTempoDevnet } from '../chains/start-tempo-chain.ts'
import { createMppFetch } from '../clients/create-mpp-fetch.ts'
import { createX402Fetch } from '../clients/create-x402-fetch.ts'
import { signV1Payment } from '../clients/sign-v1-payment.ts'
import type { DevnetAccounts } from '../devnet-accounts.ts'
import type { Devnet } from '../start-devnet.ts'
import { fiatTokenAbi } from '../usdc/fiat-token-abi.ts'
import type { DevnetDescriptor } from './devnet-descriptor.ts'

export type ConnectDevnetParameters = {
  accounts: DevnetAccounts
  /** Include the Tempo chain and `mppFetch`. */
  tempo: boolean
}

const refuse = (what: string) => () => {
  throw new Error(
    `${what} on the shared devnet: fault switches need their own devnet: startDevnet() in a .faults.test.ts file`,
  )
}

/**
 * A {@link Devnet} on chains someone else runs (the chain tier's global devnet): same clients and
 * helpers as `startDevnet`'s, the given accounts, no fault switches, and a `stop()` that leaves
 * the chains running.
 *
 * @example
 * const devnet = connectDevnet(inject('devnet')!, { accounts, tempo: true })
 */
export const connectDevnet = (
  descriptor: DevnetDescriptor,
  { accounts, tempo }: ConnectDevnetParameters,
): Devnet => {
  const { base, facilitator } = descriptor
  const baseClient = createTestClient({
    mode: 'anvil',
    chain: defineBaseDevnet(base.rpcUrl),
    transport: http(base.rpcUrl),
    pollingInterval: 50,
  })
    .extend(publicActions)
    .extend(walletActions)
  const publicClient = baseClient as unknown as PublicClient
  return {
    base: { rpcUrl: base.rpcUrl, chainId: base.chainId, usdc: base.usdc, publicClient },
    facilitator: {
      url: facilitator.url,
      address: facilitator.address,
      setBehavior: refuse('facilitator.setBehavior()'),
      settlements: refuse('facilitator.settlements() counts every file'),
    },
    accounts,
    pids: { base: base.pid, ...(tempo && { tempo: descriptor.tempo.pid }) },
    usdcBalance: (address: Address) =>
      baseClient.readContract({
        address: base.usdc,
        abi: fiatTokenAbi,
        functionName: 'balanceOf',
        args: [address],
      }),
    x402Fetch: (account = accounts.payer) => createX402Fetch(publicClient, { account }),
    signV1Payment: (requirements, account = accounts.payer) => signV1Payment(account, requirements),
    ...(tempo && tempoFields(descriptor.tempo, accounts)),
    stop: async () => {},
  }
}

const tempoFields = (tempo: DevnetDescriptor['tempo'], accounts: DevnetAccounts) => {
  const chain = defineTempoDevnet(tempo.rpcUrl)
  const publicClient = createPublicClient({ chain, transport: http(tempo.rpcUrl) })
  return {
    tempo: {
      rpcUrl: tempo.rpcUrl,
      chainId: tempo.chainId,
      currency: tempo.currency,
      publicClient: publicClient as unknown as PublicClient,
    },
    tempoBalance: (address: Address) =>
      publicClient.readContract({
        address: tempo.currency,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [address],
      }),
    mppFetch: (account: PrivateKeyAccount = accounts.payer, mode: 'push' | 'pull' = 'push') =>
      createMppFetch({ account, chain, rpcUrl: tempo.rpcUrl, mode }),
  }
}

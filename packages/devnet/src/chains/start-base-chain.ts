import {
  type Address,
  createTestClient,
  defineChain,
  http,
  type PublicClient,
  publicActions,
  walletActions,
} from 'viem'
import { spawnAnvil } from '../anvil/spawn-anvil.ts'
import { fiatTokenAbi } from '../usdc/fiat-token-abi.ts'
import { installUsdc } from '../usdc/install-usdc.ts'

export const BASE_CHAIN_ID = 8453

export type StartBaseChainParameters = {
  admin: Address
  mints: readonly { to: Address; amount: bigint }[]
}

export type StartBaseChainReturnType = {
  rpcUrl: string
  chainId: typeof BASE_CHAIN_ID
  usdc: Address
  publicClient: PublicClient
  pid: number
  usdcBalance: (address: Address) => Promise<bigint>
  stop: () => Promise<void>
}

/**
 * An anvil posing as Base (chain 8453) with Circle's USDC at its canonical address.
 *
 * @example
 * const base = await startBaseChain({ admin, mints: [{ to: payer, amount: 10n ** 12n }] })
 */
export const startBaseChain = async ({
  admin,
  mints,
}: StartBaseChainParameters): Promise<StartBaseChainReturnType> => {
  const anvil = await spawnAnvil({ args: ['--chain-id', String(BASE_CHAIN_ID)] })
  try {
    const chain = defineBaseDevnet(anvil.rpcUrl)
    const transport = http(anvil.rpcUrl)
    // Anvil mines on submit; a short polling interval keeps receipt waits near zero.
    const client = createTestClient({ mode: 'anvil', chain, transport, pollingInterval: 50 })
      .extend(publicActions)
      .extend(walletActions)
    const usdc = await installUsdc(client, { admin, mints })
    const publicClient = client as unknown as PublicClient
    return {
      rpcUrl: anvil.rpcUrl,
      chainId: BASE_CHAIN_ID,
      usdc,
      publicClient,
      pid: anvil.pid,
      usdcBalance: (address) =>
        client.readContract({
          address: usdc,
          abi: fiatTokenAbi,
          functionName: 'balanceOf',
          args: [address],
        }),
      stop: anvil.stop,
    }
  } catch (error) {
    await anvil.stop()
    throw error
  }
}

/** Base's chain id on a local RPC; plain EVM (anvil has no OP-stack deposit transactions). */
export const defineBaseDevnet = (rpcUrl: string) =>
  defineChain({
    id: BASE_CHAIN_ID,
    name: 'Base (devnet)',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  })

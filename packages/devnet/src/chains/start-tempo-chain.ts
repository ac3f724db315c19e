import { type Address, createPublicClient, erc20Abi, http, type PublicClient } from 'viem'
import { tempo } from 'viem/chains'
import { spawnAnvil } from '../anvil/spawn-anvil.ts'

/** Tempo mainnet's chain id; anvil's `--network tempo` brings the TIP-20 precompiles. */
export const TEMPO_CHAIN_ID = 4217

/**
 * Anvil's Tempo defaults to hardfork T0, which predates expiring nonces: it then treats mppx's
 * `nonceKey: 'expiring'` as an ordinary 2D nonce key and silently drops every push payment after
 * an account's first ("nonce 0 too low, expected 1"). T4 is the newest anvil 1.7.1 accepts.
 */
export const TEMPO_HARDFORK = 't4'

/**
 * pathUSD, the TIP-20 that anvil's Tempo genesis funds every dev account with. Tempo mainnet's
 * USDC (`0x20C0…b9537d11c60E8b50`, mppx's default currency for 4217) does not exist on anvil.
 */
export const TEMPO_PATH_USD: Address = '0x20c0000000000000000000000000000000000000'

export type StartTempoChainReturnType = {
  rpcUrl: string
  chainId: number
  currency: Address
  publicClient: PublicClient
  pid: number
  chain: ReturnType<typeof defineTempoDevnet>
  tempoBalance: (address: Address) => Promise<bigint>
  stop: () => Promise<void>
}

/**
 * An anvil running Tempo (chain 4217) where MPP `tempo.charge` payments settle, push and pull.
 *
 * @example
 * const tempo = await startTempoChain()
 * await tempo.tempoBalance(recipient)
 */
export const startTempoChain = async (): Promise<StartTempoChainReturnType> => {
  const anvil = await spawnAnvil({
    args: [
      '--network',
      'tempo',
      '--chain-id',
      String(TEMPO_CHAIN_ID),
      '--hardfork',
      TEMPO_HARDFORK,
      // Transactions still mine at once; an empty block every 2 s keeps `latest` near wall
      // time, which MPP pull needs (see below).
      '--mixed-mining',
      '--block-time',
      '2',
    ],
  })
  const chain = defineTempoDevnet(anvil.rpcUrl)
  const publicClient = createPublicClient({ chain, transport: http(anvil.rpcUrl) })
  // Anvil's Tempo genesis is stamped 1 (1970). MPP pull transactions carry an expiring nonce
  // whose validity window is in wall-clock time (valid before at most 30 s past the block), and
  // the server simulates them at `latest` before broadcasting: against a stale block (the
  // genesis, or a chain idle for a while) the simulation fails ("transaction not valid yet",
  // "valid_before too far in the future"). A block now, and one every 2 s (above), keep it fresh.
  await publicClient.request({ method: 'evm_mine' as never, params: [] as never })
  return {
    rpcUrl: anvil.rpcUrl,
    chainId: TEMPO_CHAIN_ID,
    currency: TEMPO_PATH_USD,
    publicClient: publicClient as unknown as PublicClient,
    pid: anvil.pid,
    chain,
    tempoBalance: (address) =>
      publicClient.readContract({
        address: TEMPO_PATH_USD,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [address],
      }),
    stop: anvil.stop,
  }
}

/** viem's Tempo chain (its 0x76 transaction type and fee-token formatters) on a local RPC. */
export const defineTempoDevnet = (rpcUrl: string) => ({
  ...tempo,
  rpcUrls: { default: { http: [rpcUrl] } },
})

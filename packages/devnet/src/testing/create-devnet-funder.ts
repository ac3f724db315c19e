import {
  type Address,
  createWalletClient,
  erc20Abi,
  type Hex,
  http,
  maxUint256,
  numberToHex,
  publicActions,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { defineBaseDevnet } from '../chains/start-base-chain.ts'
import { defineTempoDevnet } from '../chains/start-tempo-chain.ts'
import { DEVNET_ADMIN } from '../devnet-accounts.ts'
import { DEVNET_PAYER_USDC } from '../start-devnet.ts'
import { fiatTokenAbi } from '../usdc/fiat-token-abi.ts'

/** Anvil's dev account 9: pathUSD at Tempo genesis, and used by nothing else in this repository. */
const TEMPO_FUNDER_KEY: Hex = '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6'

/** 10,000 ETH, what anvil gives its dev accounts. */
const DEV_ETH = 10n ** 22n

export type CreateDevnetFunderParameters = {
  base: { rpcUrl: string; usdc: Address }
  tempo?: { rpcUrl: string; currency: Address }
}

export type FundRequest = { base?: readonly Address[]; tempo?: readonly Address[] }

export type DevnetFunder = {
  /** Base: 10,000 ETH and {@link DEVNET_PAYER_USDC} USDC each; Tempo: as much pathUSD each. */
  fund: (request: FundRequest) => Promise<void>
}

/**
 * Funds fresh accounts on a running devnet, as `startDevnet` funds its payers. One funder per
 * chain, each used by this funder only and one transaction at a time, so parallel test files
 * never race for a nonce (the admin stays free for tests that deploy with it).
 *
 * @example
 * const funder = await createDevnetFunder({ base: { rpcUrl, usdc } })
 * await funder.fund({ base: [payer.address] })
 */
export const createDevnetFunder = async ({
  base,
  tempo,
}: CreateDevnetFunderParameters): Promise<DevnetFunder> => {
  const baseClient = createWalletClient({
    account: privateKeyToAccount(generatePrivateKey()),
    chain: defineBaseDevnet(base.rpcUrl),
    transport: http(base.rpcUrl),
    pollingInterval: 50,
  }).extend(publicActions)
  const setEth = (address: Address) =>
    baseClient.request({
      method: 'anvil_setBalance',
      params: [address, numberToHex(DEV_ETH)],
    } as never)
  const minter = baseClient.account.address
  await setEth(minter)
  // The admin is USDC's master minter and unlocked: one transaction makes our minter a minter.
  await waitForSuccess(
    baseClient,
    await baseClient.writeContract({
      account: DEVNET_ADMIN,
      address: base.usdc,
      abi: fiatTokenAbi,
      functionName: 'configureMinter',
      args: [minter, maxUint256],
    }),
  )
  const tempoClient =
    tempo &&
    createWalletClient({
      account: privateKeyToAccount(TEMPO_FUNDER_KEY),
      chain: defineTempoDevnet(tempo.rpcUrl),
      transport: http(tempo.rpcUrl),
      pollingInterval: 50,
    }).extend(publicActions)

  const fundBase = async (to: Address) => {
    await setEth(to)
    const hash = await baseClient.writeContract({
      address: base.usdc,
      abi: fiatTokenAbi,
      functionName: 'mint',
      args: [to, DEVNET_PAYER_USDC],
    })
    await waitForSuccess(baseClient, hash)
  }
  const fundTempo = async (to: Address) => {
    if (!tempo || !tempoClient) throw new Error('this devnet has no Tempo chain to fund on')
    const hash = await tempoClient.writeContract({
      address: tempo.currency,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [to, DEVNET_PAYER_USDC],
    })
    await waitForSuccess(tempoClient, hash)
  }

  // One queue per chain: a request waits for the ones before it on that chain.
  const queues = { base: Promise.resolve(), tempo: Promise.resolve() }
  const enqueue = (chain: keyof typeof queues, work: () => Promise<void>) => {
    const done = queues[chain].then(work)
    queues[chain] = done.catch(() => {})
    return done
  }
  return {
    fund: async (request) => {
      await Promise.all([
        enqueue('base', async () => {
          for (const to of request.base ?? []) await fundBase(to)
        }),
        enqueue('tempo', async () => {
          for (const to of request.tempo ?? []) await fundTempo(to)
        }),
      ])
    },
  }
}

const waitForSuccess = async (
  client: { waitForTransactionReceipt: (args: { hash: Hex }) => Promise<{ status: string }> },
  hash: Hex,
) => {
  const receipt = await client.waitForTransactionReceipt({ hash })
  if (receipt.status !== 'success') throw new Error(`funding transaction ${hash} reverted`)
}

import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { Hono } from 'hono'
import {
  type Abi,
  type Address,
  createTestClient,
  erc20Abi,
  type Hex,
  http,
  parseUnits,
  publicActions,
  walletActions,
} from 'viem'
import { createNonceManager, generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { jsonRpc } from 'viem/nonce'
import { serveLocal } from '../serve-local.ts'

/**
 * OpenZeppelin's audited ERC20PresetMinterPauser (v3.4.2, solc 0.7), from the
 * compiled artifact the npm package ships: name, symbol, 18 decimals, and a
 * minter role held by the deployer.
 */
const readPreset = () => {
  const require = createRequire(import.meta.url)
  const path = require.resolve(
    '@openzeppelin/contracts/build/contracts/ERC20PresetMinterPauser.json',
  )
  return JSON.parse(readFileSync(path, 'utf8')) as { abi: Abi; bytecode: Hex }
}

const mintAbi = [
  {
    type: 'function',
    name: 'mint',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'amount', type: 'uint256' },
    ],
    outputs: [],
  },
] as const

export type StartStudioTokenParameters = {
  /** The Base devnet's RPC (an anvil: the token's deployer is funded with anvil_setBalance). */
  rpcUrl: string
  /** Whole tokens to mint to each address at start. */
  mints?: ReadonlyArray<{ to: Address; tokens: string }>
  /** The stand-in's USD price of one token, as a decimal string. */
  usd?: string
  name?: string
  symbol?: string
}

export type StudioToken = {
  token: Address
  /** The price stand-in: `GET` answers `{ "studio": { "usd": <price> } }` (CoinGecko's simple-price shape). */
  priceUrl: string
  /** Moves the stand-in's price (a decimal string); `undefined` makes it answer 503. */
  setPriceUsd: (usd: string | undefined) => void
  /** Mints whole tokens to an address. */
  fund: (to: Address, tokens: string) => Promise<void>
  balanceOf: (address: Address) => Promise<bigint>
  /** What the dating venue reads to value holdings on this devnet. */
  env: () => Record<string, string>
  stop: () => Promise<void>
}

/**
 * A studio token on the Base devnet and a price source for it, so a venue's
 * holding tiers work locally: OpenZeppelin's ERC-20 preset deployed by the
 * devnet admin, and a small HTTP price stand-in.
 *
 * @example
 * const studio = await startStudioToken({ rpcUrl: devnet.base.rpcUrl, usd: '0.25' })
 * await studio.fund(wallet, '400') // $100 of holding
 */
export const startStudioToken = async ({
  rpcUrl,
  mints = [],
  usd = '0.25',
  name = 'Studio (devnet)',
  symbol = 'STUDIO',
}: StartStudioTokenParameters): Promise<StudioToken> => {
  const client = createTestClient({ mode: 'anvil', transport: http(rpcUrl), pollingInterval: 50 })
    .extend(publicActions)
    .extend(walletActions)
  // A deployer (and minter) of this token's own, not the unlocked admin: tokens started at
  // once on one shared chain would race for the admin's nonces (anvil refuses the losers).
  const minter = privateKeyToAccount(generatePrivateKey(), {
    nonceManager: createNonceManager({ source: jsonRpc() }),
  })
  await client.setBalance({ address: minter.address, value: 10n ** 20n })
  const preset = readPreset()
  const hash = await client.deployContract({
    account: minter,
    chain: null,
    abi: preset.abi,
    bytecode: preset.bytecode,
    args: [name, symbol],
  })
  const receipt = await client.waitForTransactionReceipt({ hash })
  if (receipt.status !== 'success' || !receipt.contractAddress)
    throw new Error('studio token deployment failed')
  const token = receipt.contractAddress
  const fund = async (to: Address, tokens: string) => {
    const minted = await client.writeContract({
      account: minter,
      chain: null,
      address: token,
      abi: mintAbi,
      functionName: 'mint',
      args: [to, parseUnits(tokens, 18)],
    })
    const done = await client.waitForTransactionReceipt({ hash: minted })
    if (done.status !== 'success') throw new Error(`minting studio tokens to ${to} failed`)
  }
  for (const { to, tokens } of mints) await fund(to, tokens)

  let price: string | undefined = usd
  const app = new Hono()
  app.get('/price', (c) =>
    price === undefined
      ? c.json({ error: 'price unavailable (stand-in switched off)' }, 503)
      : c.json({ studio: { usd: price } }),
  )
  const server = await serveLocal(app.fetch)
  const priceUrl = `${server.url}/price`

  return {
    token,
    priceUrl,
    setPriceUsd: (next) => {
      price = next
    },
    fund,
    balanceOf: (address) =>
      client.readContract({
        address: token,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [address],
      }),
    env: () => ({
      VENUE_STUDIO_TOKEN: token,
      VENUE_STUDIO_RPC_URL: rpcUrl,
      VENUE_STUDIO_PRICE_URL: priceUrl,
    }),
    stop: server.close,
  }
}

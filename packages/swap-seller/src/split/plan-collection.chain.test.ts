import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { SplitV2Client } from '@0xsplits/splits-sdk'
import type { Devnet } from '@agents/devnet'
import { sharedDevnet } from '@agents/devnet/testing'
import { postJson } from '@agents/service-kit'
import fc from 'fast-check'
import { type Address, createWalletClient, erc20Abi, getAddress, http, zeroHash } from 'viem'
import { afterAll, beforeAll, expect, test } from 'vitest'
// The hub's own computation and test harness: the kit must land where the hub does.
import {
  splitAddress as hubSplitAddress,
  splitFor as hubSplitFor,
} from '../../../../services/swap-rail/src/split/split-address.ts'
import type { SwapRail } from '../../../../services/swap-rail/src/start.ts'
import { startTestSwapRail } from '../../../../services/swap-rail/src/testing.ts'
import { runSellerCommand } from '../run-seller-command.ts'
import { planCollection, type SplitPlan } from './plan-collection.ts'
import { predictSplitAddress } from './predict-split-address.ts'
import { sellerSplit } from './seller-split.ts'

const FEE_BPS = 250
let devnet: Devnet
let rail: SwapRail
let seller: Address
let feeRecipient: Address

beforeAll(async () => {
  devnet = await sharedDevnet({ tempo: false })
  rail = await startTestSwapRail({ devnet, env: { SWAP_FEE_BPS: String(FEE_BPS) } })
  seller = devnet.accounts.payee2
  feeRecipient = devnet.accounts.payee // the devnet's PAYMENTS_PAY_TO: the hub's fee recipient
}, 60_000)
afterAll(async () => {
  await rail?.close()
  await devnet?.stop()
})

const postOffer = async (payTo: Address) => {
  const response = await postJson(`${rail.url}/v1/offers`, {
    endpoint: 'http://localhost:9/v1',
    payTo,
    model: 'gpt-test',
    mtok: 1,
    priceUsd: '2',
  })
  expect(response.status).toBe(201)
  return response.json.offer as { id: string; splitAddress: Address; feeBps: number }
}

const arbitraryAddress = fc
  .uint8Array({ minLength: 20, maxLength: 20 })
  .map((bytes) => getAddress(`0x${Buffer.from(bytes).toString('hex')}`))

test("behavior: the kit's split address equals the hub's, for the hub's offers and for any payTo, fee recipient and fee", async () => {
  const offer = await postOffer(seller)
  expect(offer.feeBps).toBe(FEE_BPS)
  expect(predictSplitAddress(sellerSplit({ seller, feeRecipient, feeBps: FEE_BPS }))).toBe(
    offer.splitAddress,
  )
  fc.assert(
    fc.property(
      arbitraryAddress,
      arbitraryAddress,
      fc.integer({ min: 0, max: 10_000 }),
      (payTo, recipient, feeBps) => {
        const parties = { seller: payTo, feeRecipient: recipient, feeBps }
        expect(sellerSplit(parties)).toEqual(hubSplitFor(parties))
        expect(predictSplitAddress(sellerSplit(parties))).toBe(
          hubSplitAddress(hubSplitFor(parties)),
        )
      },
    ),
    { numRuns: 200 },
  )
})

test("default: collect reads the hub's offers and the split's USDC balance, and builds create then distribute, encoded as the 0xSplits SDK encodes them", async () => {
  const payTo = getAddress('0x00000000000000000000000000000000000c0ffe')
  const offer = await postOffer(payTo)
  // A buyer's payment, landed on the split before anyone created it.
  const wallet = createWalletClient({
    account: devnet.accounts.payer,
    transport: http(devnet.base.rpcUrl),
  })
  const hash = await wallet.writeContract({
    chain: null,
    address: devnet.base.usdc,
    abi: erc20Abi,
    functionName: 'transfer',
    args: [offer.splitAddress, 2_000_000n],
  })
  await devnet.base.publicClient.waitForTransactionReceipt({ hash })

  const plan = await planCollection(
    { client: devnet.base.publicClient },
    { hubUrl: rail.url, payTo, feeRecipient, token: devnet.base.usdc },
  )
  expect(plan.ok).toBe(true)
  if (!plan.ok) return
  const [split] = plan.splits as [SplitPlan]
  expect(split).toMatchObject({
    splitAddress: offer.splitAddress,
    feeBps: FEE_BPS,
    offers: [offer.id],
    created: false,
    balance: '2000000',
  })
  // 2 USDC less the unit PushSplit keeps: 97.5 % to the seller, 2.5 % to the hub, rounded down.
  const payouts = Object.fromEntries(split.recipients.map((r) => [r.address, r.payout]))
  expect(payouts).toEqual({ [payTo]: '1949999', [feeRecipient]: '49999' })
  expect(split.dust).toBe('2')
  // The devnet has no 0xSplits contracts: the node cannot estimate, and says so with null.
  expect(split.transactions.map(({ estimatedGas }) => estimatedGas)).toEqual([null, null])
  expect(split.transactions.map(({ to }) => to)).toEqual([
    '0x8E8eB0cC6AE34A38B67D5Cf91ACa38f60bc3Ecf4',
    offer.splitAddress,
  ])

  // The SDK's own encoder, given the same split.
  const sdk = new SplitV2Client({ chainId: 8453, publicClient: devnet.base.publicClient as never })
  const recipients = split.recipients.map(({ address, allocation }) => ({
    address,
    percentAllocation: Number(allocation) / 10_000,
  }))
  const create = await sdk.callData.createSplit({
    recipients,
    distributorFeePercent: 0,
    splitType: 'push' as never,
    ownerAddress: '0x0000000000000000000000000000000000000000',
    creatorAddress: payTo,
    salt: zeroHash,
  })
  const distribute = await sdk.callData.distribute({
    splitAddress: offer.splitAddress,
    tokenAddress: devnet.base.usdc,
    distributorAddress: payTo,
    splitFields: {
      recipients: split.recipients.map(({ address, allocation }) => ({
        recipient: { address },
        percentAllocation: Number(allocation) / 10_000,
        ownership: BigInt(allocation),
      })),
      distributorFeePercent: 0,
    } as never,
  })
  expect(split.transactions.map(({ to, data }) => ({ to, data }))).toEqual([
    { to: create.address, data: create.data },
    { to: distribute.address, data: distribute.data },
  ])
})

test('error: a fee recipient that does not reproduce the hub split is refused, as is a payTo with no offers', async () => {
  const payTo = getAddress('0x00000000000000000000000000000000000bad00')
  await postOffer(payTo)
  const options = { hubUrl: rail.url, payTo, token: devnet.base.usdc }
  const client = devnet.base.publicClient
  expect(await planCollection({ client }, { ...options, feeRecipient: payTo })).toMatchObject({
    ok: false,
    reason: 'split_mismatch',
  })
  // Without the flag, the hub's offers name its fee recipient: the split is rebuilt from it.
  const listed = await fetch(`${rail.url}/v1/offers?status=all`).then((r) => r.json())
  expect(listed.offers.find((offer: { payTo: string }) => offer.payTo === payTo).feeRecipient).toBe(
    feeRecipient,
  )
  expect(await planCollection({ client }, options)).toMatchObject({ ok: true })
  const nobody = { ...options, payTo: '0x000000000000000000000000000000000000dead', feeRecipient }
  expect(await planCollection({ client }, nobody)).toMatchObject({ ok: false, reason: 'no_offers' })
})

const cli = fileURLToPath(new URL('../seller-cli.ts', import.meta.url))

test('default: the seller command (seller-cli.ts, a process of its own) prints the plan as JSON; bad arguments are listed with the usage', async () => {
  const payTo = getAddress('0x00000000000000000000000000000000000c0ffe')
  const run = await promisify(execFile)(process.execPath, [
    '--import',
    'tsx',
    cli,
    'collect',
    '--hub',
    rail.url,
    '--pay-to',
    payTo,
    '--fee-recipient',
    feeRecipient,
    '--rpc',
    devnet.base.rpcUrl,
    '--token',
    devnet.base.usdc,
  ])
  const plan = JSON.parse(run.stdout)
  expect(plan).toMatchObject({ ok: true, payTo, chainId: 8453 })
  expect(plan.splits[0].transactions.map((t: { description: string }) => t.description)).toEqual([
    expect.stringMatching(/^create the split 0x/),
    expect.stringMatching(/^distribute the split's/),
  ])

  const bad = await runSellerCommand(['collect', '--pay-to', 'nope'])
  expect(bad.code).toBe(2)
  expect(bad.stderr).toContain('--hub: a URL is required')
  expect(bad.stderr).toContain('--pay-to: not an address')
  expect(bad.stderr).toContain('usage: swap-seller collect')
})

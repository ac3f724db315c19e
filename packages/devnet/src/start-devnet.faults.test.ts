import {
  decodePaymentResponseHeader,
  decodePaymentSignatureHeader,
  encodePaymentRequiredHeader,
  encodePaymentResponseHeader,
} from '@x402/core/http'
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server'
import { ExactEvmScheme } from '@x402/evm/exact/server'
import { Hono } from 'hono'
import { Mppx, tempo } from 'mppx/server'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { serveLocal } from './serve-local.ts'
import { DEVNET_PAYER_USDC, type Devnet, startDevnet } from './start-devnet.ts'
import { fiatTokenAbi } from './usdc/fiat-token-abi.ts'

let devnet: Devnet
const closers: (() => Promise<void>)[] = []

beforeAll(async () => {
  devnet = await startDevnet()
})

afterAll(async () => {
  for (const close of closers) await close()
  await devnet?.stop()
})

/** A paid route in the x402 v2 shape, checked and settled through the devnet facilitator. */
const serveX402Route = async ({ price, payTo }: { price: string; payTo: `0x${string}` }) => {
  const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: devnet.facilitator.url }))
  server.register('eip155:8453', new ExactEvmScheme())
  await server.initialize()
  // Built from @x402/evm's default asset table: proves the devnet USDC needs no overrides.
  const requirements = await server.buildPaymentRequirements({
    scheme: 'exact',
    network: 'eip155:8453',
    payTo,
    price,
  })
  const app = new Hono()
  app.get('/paid', async (c) => {
    const header = c.req.header('PAYMENT-SIGNATURE')
    if (!header) {
      const required = await server.createPaymentRequiredResponse(requirements, { url: c.req.url })
      return c.json({}, 402, { 'PAYMENT-REQUIRED': encodePaymentRequiredHeader(required) })
    }
    const payload = decodePaymentSignatureHeader(header)
    const accepted = server.findMatchingRequirements(requirements, payload)!
    const verified = await server.verifyPayment(payload, accepted)
    if (!verified.isValid) return c.json(verified, 402)
    const settled = await server.settlePayment(payload, accepted)
    return c.json({ ok: true }, 200, { 'PAYMENT-RESPONSE': encodePaymentResponseHeader(settled) })
  })
  const served = await serveLocal(app.fetch)
  closers.push(served.close)
  return { url: `${served.url}/paid`, requirements }
}

const postFacilitator = async (
  { facilitator }: Devnet,
  path: 'verify' | 'settle',
  body: unknown,
) => {
  const response = await fetch(`${facilitator.url}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

const decodeHeader = (header: string) => JSON.parse(Buffer.from(header, 'base64').toString('utf8'))

/** A legacy v1 `accepts` entry for Base USDC; v1 names the network `base`. */
const v1Requirements = (
  devnet: Devnet,
  { amount, payTo }: { amount: bigint; payTo: `0x${string}` },
) => ({
  scheme: 'exact',
  network: 'base',
  maxAmountRequired: amount.toString(),
  resource: 'http://127.0.0.1/legacy',
  description: 'legacy v1 resource',
  mimeType: 'application/json',
  payTo,
  maxTimeoutSeconds: 60,
  asset: devnet.base.usdc,
  outputSchema: {},
  extra: { name: 'USD Coin', version: '2' },
})

describe('startDevnet', () => {
  test('usdc: FiatTokenV2_2 at the canonical Base address with the x402 domain', async () => {
    const token = { address: devnet.base.usdc, abi: fiatTokenAbi } as const
    const client = devnet.base.publicClient
    expect(devnet.base.usdc).toBe('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913')
    expect(await client.getChainId()).toBe(8453)
    expect(await client.readContract({ ...token, functionName: 'name' })).toBe('USD Coin')
    expect(await client.readContract({ ...token, functionName: 'symbol' })).toBe('USDC')
    expect(await client.readContract({ ...token, functionName: 'version' })).toBe('2')
    expect(await client.readContract({ ...token, functionName: 'decimals' })).toBe(6)
    expect(await devnet.usdcBalance(devnet.accounts.payer.address)).toBe(DEVNET_PAYER_USDC)
    expect(await devnet.usdcBalance(devnet.accounts.payer2.address)).toBe(DEVNET_PAYER_USDC)
    expect(await devnet.usdcBalance(devnet.accounts.payee)).toBe(0n)
  })

  test('facilitator: /supported lists exact v2 on eip155:8453 and v1 on base', async () => {
    const response = await fetch(`${devnet.facilitator.url}/supported`)
    const { kinds, signers } = (await response.json()) as {
      kinds: { x402Version: number; scheme: string; network: string }[]
      signers: Record<string, string[]>
    }
    expect(kinds).toContainEqual({ x402Version: 2, scheme: 'exact', network: 'eip155:8453' })
    expect(kinds).toContainEqual({ x402Version: 1, scheme: 'exact', network: 'base' })
    expect(Object.values(signers).flat()).toContain(devnet.facilitator.address)
  })

  test('x402 v2: x402Fetch pays a route that verifies and settles through the facilitator', async () => {
    const { payer, payee } = devnet.accounts
    const route = await serveX402Route({ price: '$0.01', payTo: payee })
    expect(route.requirements[0]).toMatchObject({
      amount: '10000',
      asset: devnet.base.usdc,
      extra: { name: 'USD Coin', version: '2' },
    })
    const payerBefore = await devnet.usdcBalance(payer.address)
    const payeeBefore = await devnet.usdcBalance(payee)

    const response = await devnet.x402Fetch()(route.url)

    expect(response.status).toBe(200)
    const settlement = decodePaymentResponseHeader(response.headers.get('PAYMENT-RESPONSE')!)
    expect(settlement).toMatchObject({
      success: true,
      network: 'eip155:8453',
      payer: payer.address,
    })
    const receipt = await devnet.base.publicClient.getTransactionReceipt({
      hash: settlement.transaction as `0x${string}`,
    })
    expect(receipt.from.toLowerCase()).toBe(devnet.facilitator.address.toLowerCase())
    expect(await devnet.usdcBalance(payer.address)).toBe(payerBefore - 10_000n)
    expect(await devnet.usdcBalance(payee)).toBe(payeeBefore + 10_000n)
  })

  test('x402 v1: signV1Payment header verifies and settles over the facilitator HTTP API', async () => {
    const { payer2, payee2 } = devnet.accounts
    const requirements = v1Requirements(devnet, { amount: 25_000n, payTo: payee2 })
    const header = await devnet.signV1Payment(requirements, payer2)
    const paymentPayload = decodeHeader(header)
    expect(paymentPayload).toMatchObject({ x402Version: 1, scheme: 'exact', network: 'base' })
    const body = { x402Version: 1, paymentPayload, paymentRequirements: requirements }
    const payeeBefore = await devnet.usdcBalance(payee2)

    const verified = await postFacilitator(devnet, 'verify', body)
    expect(verified).toMatchObject({ status: 200, body: { isValid: true, payer: payer2.address } })
    const settled = await postFacilitator(devnet, 'settle', body)
    expect(settled).toMatchObject({ status: 200, body: { success: true, network: 'base' } })

    expect(await devnet.usdcBalance(payee2)).toBe(payeeBefore + 25_000n)
    // The authorization nonce is spent: replaying the same header no longer verifies.
    const replay = await postFacilitator(devnet, 'verify', body)
    expect(replay.body.isValid).toBe(false)
  })

  test('behavior: down answers 503 and delayMs slows every route', async () => {
    devnet.facilitator.setBehavior('down')
    try {
      const down = await fetch(`${devnet.facilitator.url}/supported`)
      expect(down.status).toBe(503)
      expect((await postFacilitator(devnet, 'verify', {})).status).toBe(503)
      devnet.facilitator.setBehavior({ delayMs: 300 })
      const started = performance.now()
      const slow = await fetch(`${devnet.facilitator.url}/supported`)
      expect(slow.status).toBe(200)
      expect(performance.now() - started).toBeGreaterThanOrEqual(290)
    } finally {
      devnet.facilitator.setBehavior('normal')
    }
  })

  test('mpp: mppFetch pays a tempo.charge route twice in push mode on the Tempo devnet', async () => {
    const { tempo: tempoChain, tempoBalance, mppFetch } = devnet
    if (!tempoChain || !tempoBalance || !mppFetch) throw new Error('tempo devnet not started')
    const { feeRecipient } = devnet.accounts
    const mppx = Mppx.create({
      methods: [
        tempo.charge({
          recipient: feeRecipient,
          currency: tempoChain.currency,
          chainId: tempoChain.chainId,
          getClient: () => tempoChain.publicClient,
        }),
      ],
      secretKey: 'devnet-test-secret-devnet-test-secret',
      realm: 'devnet.test',
    })
    const app = new Hono()
    app.get('/paid', async (c) => {
      const result = await mppx.charge({ amount: '0.25' })(c.req.raw)
      if (result.status === 402) return result.challenge
      return result.withReceipt(c.json({ ok: true }))
    })
    const served = await serveLocal(app.fetch)
    closers.push(served.close)
    const before = await tempoBalance(feeRecipient)

    const pay = mppFetch()
    const first = await pay(`${served.url}/paid`)
    // A second payment from the same account: on anvil's default Tempo hardfork (T0) this one
    // was silently dropped, because the expiring nonce was treated as a spent 2D nonce.
    const second = await pay(`${served.url}/paid`)

    expect([first.status, second.status]).toEqual([200, 200])
    expect(first.headers.get('Payment-Receipt')).toBeTruthy()
    expect(await tempoBalance(feeRecipient)).toBe(before + 2n * 250_000n)
  })

  test('stop: ends both anvil processes', async () => {
    const { pids } = devnet
    await devnet.stop()
    expect(() => process.kill(pids.base, 0)).toThrow()
    expect(() => process.kill(pids.tempo!, 0)).toThrow()
  })
})

test('startDevnet({ tempo: false }): Base and the facilitator only', async () => {
  const baseOnly = await startDevnet({ tempo: false })
  try {
    expect(baseOnly.tempo).toBeUndefined()
    expect(baseOnly.mppFetch).toBeUndefined()
    expect(baseOnly.pids.tempo).toBeUndefined()
    expect(await baseOnly.usdcBalance(baseOnly.accounts.payer.address)).toBe(DEVNET_PAYER_USDC)
    // A second devnet in one process reuses the facilitator key and chain id: settling here
    // proves its nonces come from this chain, not from the devnet above.
    const requirements = v1Requirements(baseOnly, {
      amount: 5_000n,
      payTo: baseOnly.accounts.payee,
    })
    const paymentPayload = decodeHeader(await baseOnly.signV1Payment(requirements))
    const settled = await postFacilitator(baseOnly, 'settle', {
      x402Version: 1,
      paymentPayload,
      paymentRequirements: requirements,
    })
    expect(settled.body).toMatchObject({ success: true })
    expect(await baseOnly.usdcBalance(baseOnly.accounts.payee)).toBe(5_000n)
  } finally {
    await baseOnly.stop()
  }
  expect(() => process.kill(baseOnly.pids.base, 0)).toThrow()
})

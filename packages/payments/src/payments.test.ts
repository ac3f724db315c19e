import { type Devnet, serveLocal, startDevnet } from '@agents/devnet'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { PaymentsDeps } from './charge.ts'
import { decodeBase64Json, encodeBase64Json } from './headers.ts'
import { type PayerVariables, paid } from './paid.ts'
import { createMemoryReceiptStore } from './receipt-store.ts'
import { devnetBaseRail } from './testing/devnet-rail.ts'
import { paymentSignatureHeader, xPaymentHeader } from './testing/sign-authorization.ts'
import type { RequirementV2 } from './x402/requirements.ts'

const PRICE = 5_000_000n // 5.00 USDC
const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'
const SPLIT = '0x5000000000000000000000000000000000000005'

let devnet: Devnet
let url: string
let closeServer: () => Promise<void>
let deps: PaymentsDeps
const store = createMemoryReceiptStore()

beforeAll(async () => {
  devnet = await startDevnet({ tempo: false })
  deps = {
    x402: {
      rails: [
        devnetBaseRail(devnet),
        {
          network: SOLANA,
          asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
          payTo: 'Hub1111111111111111111111111111111111111111',
        },
      ],
      facilitator: { url: devnet.facilitator.url, timeoutMs: 1_500 },
    },
    store,
  }
  const app = new Hono<{ Variables: PayerVariables }>()
  app.post(
    '/report',
    paid(deps, {
      price: { amount: PRICE },
      description: 'compatibility report',
      body: 'legacy-v1',
    }),
    (c) => c.json({ ok: true, payer: c.get('payment').payer }),
  )
  // A dynamic price and payee, as the swap rail charges a match.
  app.post(
    '/matches/:id/pay',
    paid(deps, {
      price: (c) => ({ amount: BigInt(c.req.param('id') ?? 0) * 1000n, payTo: SPLIT }),
    }),
    (c) => c.json({ paid: c.get('payment').amount }),
  )
  const served = await serveLocal(app.fetch)
  url = served.url
  closeServer = served.close
}, 60_000)
afterAll(async () => {
  await closeServer?.()
  await devnet?.stop()
})

const post = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: '{}',
  })

const offered = async (path = '/report') => {
  const response = await post(path)
  const required = decodeBase64Json(response.headers.get('payment-required')!) as {
    accepts: RequirementV2[]
  }
  return required.accepts.find((accept) => accept.network === 'eip155:8453')!
}

describe('the 402 challenge', () => {
  test('default: PAYMENT-REQUIRED (v2) offers every rail; the body is the legacy v1 challenge', async () => {
    const response = await post('/report')
    expect(response.status).toBe(402)
    expect(decodeBase64Json(response.headers.get('payment-required')!)).toEqual({
      x402Version: 2,
      error: 'payment required',
      resource: {
        url: `${url}/report`,
        description: 'compatibility report',
        mimeType: 'application/json',
      },
      accepts: [
        {
          scheme: 'exact',
          network: 'eip155:8453',
          amount: '5000000',
          asset: devnet.base.usdc,
          payTo: devnet.accounts.payee,
          maxTimeoutSeconds: 300,
          extra: { name: 'USD Coin', version: '2' },
        },
        {
          scheme: 'exact',
          network: SOLANA,
          amount: '5000000',
          asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
          payTo: 'Hub1111111111111111111111111111111111111111',
          maxTimeoutSeconds: 300,
          extra: {},
        },
      ],
    })
    expect(await response.json()).toEqual({
      x402Version: 1,
      error: 'payment required',
      accepts: [
        {
          scheme: 'exact',
          network: 'eip155:8453',
          maxAmountRequired: '5000000',
          resource: '/report',
          description: 'compatibility report',
          mimeType: 'application/json',
          payTo: devnet.accounts.payee,
          maxTimeoutSeconds: 300,
          asset: devnet.base.usdc,
          outputSchema: {},
          extra: { name: 'USD Coin', version: '2' },
        },
      ],
    })
  })

  test('behavior: a per-request price and payee; the payee replaces EVM rails and drops Solana', async () => {
    const response = await post('/matches/42/pay')
    const required = decodeBase64Json(response.headers.get('payment-required')!) as {
      accepts: RequirementV2[]
    }
    expect(required.accepts).toHaveLength(1)
    expect(required.accepts[0]).toMatchObject({
      network: 'eip155:8453',
      amount: '42000',
      payTo: SPLIT,
    })
    expect(await response.json()).toEqual({ error: 'payment required' })
  })
})

describe('paying', () => {
  test('behavior: v2 PAYMENT-SIGNATURE settles on-chain; PAYMENT-RESPONSE carries the transaction', async () => {
    const before = await devnet.usdcBalance(devnet.accounts.payee)
    const header = await paymentSignatureHeader(devnet.accounts.payer, await offered())
    const response = await post('/report', { 'payment-signature': header })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ ok: true, payer: devnet.accounts.payer.address })
    const receipt = decodeBase64Json(response.headers.get('payment-response')!) as Record<
      string,
      unknown
    >
    expect(receipt).toMatchObject({
      success: true,
      network: 'eip155:8453',
      payer: devnet.accounts.payer.address,
    })
    expect(receipt.transaction).toMatch(/^0x[0-9a-f]{64}$/)
    expect((await devnet.usdcBalance(devnet.accounts.payee)) - before).toBe(PRICE)
  })

  test('behavior: @x402/fetch pays the challenge by itself (under its default $1 spend cap)', async () => {
    const before = await devnet.usdcBalance(SPLIT)
    const response = await devnet.x402Fetch(devnet.accounts.payer2)(`${url}/matches/500/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    expect(response.status).toBe(200)
    expect(decodeBase64Json(response.headers.get('payment-response')!)).toMatchObject({
      success: true,
    })
    expect((await devnet.usdcBalance(SPLIT)) - before).toBe(500_000n)
  })

  test('behavior: legacy v1 X-PAYMENT settles; X-PAYMENT-RESPONSE comes back; a replay is refused', async () => {
    const before = await devnet.usdcBalance(devnet.accounts.payee)
    const header = await xPaymentHeader(devnet.accounts.payer, await offered())
    const response = await post('/report', { 'x-payment': header })
    expect(response.status).toBe(200)
    expect(decodeBase64Json(response.headers.get('x-payment-response')!)).toMatchObject({
      success: true,
    })
    expect((await devnet.usdcBalance(devnet.accounts.payee)) - before).toBe(PRICE)

    const replay = await post('/report', { 'x-payment': header })
    expect(replay.status).toBe(402)
    expect(await replay.json()).toMatchObject({
      error: 'payment not verified',
      reason: 'payment_already_used',
    })
    expect((await devnet.usdcBalance(devnet.accounts.payee)) - before).toBe(PRICE)
  })

  test('behavior: a dynamic price pays the per-request payee', async () => {
    const before = await devnet.usdcBalance(SPLIT)
    const header = await paymentSignatureHeader(
      devnet.accounts.payer,
      await offered('/matches/7/pay'),
    )
    const response = await post('/matches/7/pay', { 'payment-signature': header })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ paid: '7000' })
    expect((await devnet.usdcBalance(SPLIT)) - before).toBe(7000n)
  })
})

describe('refusals: 402 payment not verified, nothing fulfilled, nothing moved', () => {
  const refused = async (header: Record<string, string>, reason: string) => {
    const before = await devnet.usdcBalance(devnet.accounts.payee)
    const response = await post('/report', header)
    expect(response.status).toBe(402)
    const body = await response.json()
    expect(body).toMatchObject({ error: 'payment not verified', reason })
    expect(response.headers.get('payment-required')).toBeTruthy()
    expect(await devnet.usdcBalance(devnet.accounts.payee)).toBe(before)
  }

  test('errors: forged signature (signed by someone else)', async () => {
    const header = await paymentSignatureHeader(devnet.accounts.payer, await offered(), {
      signer: devnet.accounts.payer2,
    })
    await refused({ 'payment-signature': header }, 'verification_failed')
  })
  test('errors: underpayment', async () => {
    const header = await paymentSignatureHeader(devnet.accounts.payer, await offered(), {
      value: PRICE - 1n,
    })
    await refused({ 'payment-signature': header }, 'amount_mismatch')
  })
  test('errors: wrong payee', async () => {
    const header = await paymentSignatureHeader(devnet.accounts.payer, await offered(), {
      to: devnet.accounts.payee2,
    })
    await refused({ 'payment-signature': header }, 'payee_mismatch')
  })
  test('errors: wrong asset', async () => {
    const header = await paymentSignatureHeader(devnet.accounts.payer, await offered(), {
      accepted: { asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' },
    })
    await refused({ 'payment-signature': header }, 'asset_mismatch')
  })
  test('errors: wrong network', async () => {
    const header = await paymentSignatureHeader(devnet.accounts.payer, await offered(), {
      accepted: { network: 'eip155:1' },
    })
    await refused({ 'payment-signature': header }, 'network_mismatch')
  })
  test('errors: expired authorization', async () => {
    const past = BigInt(Math.floor(Date.now() / 1000)) - 10n
    const header = await paymentSignatureHeader(devnet.accounts.payer, await offered(), {
      validBefore: past,
    })
    await refused({ 'payment-signature': header }, 'authorization_expired')
  })
  test('errors: garbage headers', async () => {
    await refused({ 'payment-signature': 'not base64 json!' }, 'malformed_payment')
    await refused(
      { 'payment-signature': encodeBase64Json({ x402Version: 3 }) },
      'malformed_payment',
    )
    await refused(
      {
        'x-payment': encodeBase64Json({
          x402Version: 1,
          scheme: 'exact',
          network: 'eip155:8453',
          payload: {},
        }),
      },
      'malformed_payment',
    )
  })
  test('errors: the same v2 payment twice', async () => {
    const header = await paymentSignatureHeader(devnet.accounts.payer, await offered())
    expect((await post('/report', { 'payment-signature': header })).status).toBe(200)
    await refused({ 'payment-signature': header }, 'payment_already_used')
  })
  test('errors: facilitator down or slow; the same payment succeeds once it is back', async () => {
    const header = await paymentSignatureHeader(devnet.accounts.payer, await offered())
    try {
      devnet.facilitator.setBehavior('down')
      await refused({ 'payment-signature': header }, 'facilitator_unavailable')
      devnet.facilitator.setBehavior({ delayMs: 3_000 })
      await refused({ 'payment-signature': header }, 'facilitator_unavailable')
    } finally {
      devnet.facilitator.setBehavior('normal')
    }
    expect((await post('/report', { 'payment-signature': header })).status).toBe(200)
  })
})

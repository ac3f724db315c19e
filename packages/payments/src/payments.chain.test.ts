import type { Devnet } from '@agents/devnet'
import { sharedDevnet } from '@agents/devnet/testing'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { decodeBase64Json, encodeBase64Json } from './headers.ts'
import type { LedgerDatabase } from './ledger/ledger.ts'
import { paymentSignatureHeader, xPaymentHeader } from './testing/sign-authorization.ts'
import {
  X402_SHOP_FEE_PAYER as FEE_PAYER,
  X402_SHOP_PRICE as PRICE,
  X402_SHOP_SOLANA as SOLANA,
  startX402TestShop,
  type X402TestShop,
} from './testing/start-x402-test-shop.ts'
import { countDeliveries } from './testing/test-shop.ts'
import { x402ShopClient } from './testing/x402-shop-client.ts'
import type { RequirementV2 } from './x402/requirements.ts'

// x402 sales on the run's shared devnet: the challenge, paying, retries and refusals. The
// tests that switch the facilitator's faults or count its settlements are in payments.faults.test.ts.

let devnet: Devnet
let shop: X402TestShop
let url: string
let db: LedgerDatabase

beforeAll(async () => {
  devnet = await sharedDevnet({ tempo: false })
  shop = await startX402TestShop(devnet)
  ;({ url, db } = shop)
}, 60_000)
afterAll(async () => {
  await shop?.close()
  await devnet?.stop()
})

const { post, offered, payee, expectRefused: refused } = x402ShopClient(() => ({ url, devnet, db }))

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
          extra: { feePayer: FEE_PAYER },
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
      payTo: shop.split,
    })
    expect(await response.json()).toEqual({ error: 'payment required' })
  })
})

describe('paying', () => {
  test('behavior: v2 PAYMENT-SIGNATURE settles on-chain, delivers once; PAYMENT-RESPONSE carries the transaction', async () => {
    const before = await payee()
    const header = await paymentSignatureHeader(devnet.accounts.payer, await offered())
    const response = await post('/report', { 'payment-signature': header }, 'v2 report')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      deliveryId: expect.any(Number),
      item: 'v2 report',
      payer: devnet.accounts.payer.address,
      amount: '5000000',
    })
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
    expect((await payee()) - before).toBe(PRICE)
    expect(await countDeliveries(db, 'v2 report')).toBe(1)
  })

  test('behavior: @x402/fetch pays the challenge by itself (under its default $1 spend cap)', async () => {
    const before = await devnet.usdcBalance(shop.split)
    const response = await devnet.x402Fetch(devnet.accounts.payer2)(`${url}/matches/500/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    expect(response.status).toBe(200)
    expect(decodeBase64Json(response.headers.get('payment-response')!)).toMatchObject({
      success: true,
    })
    expect((await devnet.usdcBalance(shop.split)) - before).toBe(500_000n)
    expect(await countDeliveries(db, '/matches/500/pay')).toBe(1)
  })

  test('behavior: legacy v1 X-PAYMENT settles; X-PAYMENT-RESPONSE comes back', async () => {
    const before = await payee()
    const header = await xPaymentHeader(devnet.accounts.payer, await offered())
    const response = await post('/report', { 'x-payment': header }, 'v1 report')
    expect(response.status).toBe(200)
    expect(decodeBase64Json(response.headers.get('x-payment-response')!)).toMatchObject({
      success: true,
      network: 'eip155:8453',
      payer: devnet.accounts.payer.address,
    })
    expect(response.headers.get('payment-response')).toBeNull()
    expect((await payee()) - before).toBe(PRICE)
    expect(await countDeliveries(db, 'v1 report')).toBe(1)
  })

  test('behavior: a dynamic price pays the per-request payee', async () => {
    const before = await devnet.usdcBalance(shop.split)
    const header = await paymentSignatureHeader(
      devnet.accounts.payer,
      await offered('/matches/7/pay'),
    )
    const response = await post('/matches/7/pay', { 'payment-signature': header })
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ item: '/matches/7/pay', amount: '7000' })
    expect((await devnet.usdcBalance(shop.split)) - before).toBe(7000n)
  })
})

describe('one payment, one request: retries get the first answer, other requests are refused', () => {
  for (const [version, sign] of [
    ['v2', paymentSignatureHeader],
    ['v1', xPaymentHeader],
  ] as const) {
    test(`errors: the same ${version} payment presented to another request is refused (payment_already_used)`, async () => {
      const before = await payee()
      const name = version === 'v2' ? 'PAYMENT-SIGNATURE' : 'X-PAYMENT'
      const header = { [name]: await sign(devnet.accounts.payer, await offered()) }
      expect((await post('/report', header, `first ${version}`)).status).toBe(200)

      const other = await post('/report', header, `second ${version}`)
      expect(other.status).toBe(402)
      expect(await other.json()).toMatchObject({
        error: 'payment not verified',
        reason: 'payment_already_used',
      })
      expect(other.headers.get('payment-required')).toBeTruthy()
      expect((await payee()) - before).toBe(PRICE)
      expect(await countDeliveries(db, `second ${version}`)).toBe(0)
    })
  }
})

describe('refusals: 402 payment not verified, nothing delivered, nothing moved', () => {
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
  test('errors: authorization not yet valid', async () => {
    const later = BigInt(Math.floor(Date.now() / 1000)) + 120n
    const header = await paymentSignatureHeader(devnet.accounts.payer, await offered(), {
      validAfter: later,
    })
    await refused({ 'payment-signature': header }, 'authorization_not_yet_valid')
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
})

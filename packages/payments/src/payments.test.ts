import { type Devnet, serveLocal, startDevnet } from '@agents/devnet'
import { rowsOf } from '@agents/service-kit/db'
import { sql } from 'drizzle-orm'
import { Hono } from 'hono'
import type { Hex } from 'viem'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { createSettlementReader } from './chain/settlement-reader.ts'
import { decodeBase64Json, encodeBase64Json } from './headers.ts'
import { createPaymentLedger, type LedgerDatabase } from './ledger/ledger.ts'
import type { PaymentsDeps } from './payments-deps.ts'
import { devnetBaseRail } from './testing/devnet-rail.ts'
import { baseRequirementOf } from './testing/paid-route-harness.ts'
import { sellTestItem } from './testing/sell-test-item.ts'
import { paymentSignatureHeader, xPaymentHeader } from './testing/sign-authorization.ts'
import { switchableChain } from './testing/switchable-chain.ts'
import { countDeliveries, openTestShopDatabase } from './testing/test-shop.ts'
import type { RequirementV2 } from './x402/requirements.ts'

const PRICE = 5_000_000n // 5.00 USDC
const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'
const FEE_PAYER = 'Fee1111111111111111111111111111111111111111'
const SPLIT = '0x5000000000000000000000000000000000000005'

let devnet: Devnet
let url: string
let closeServer: () => Promise<void>
let db: LedgerDatabase
let closeDb: () => Promise<void>
let chain: ReturnType<typeof switchableChain>

beforeAll(async () => {
  devnet = await startDevnet({ tempo: false })
  ;({ db, close: closeDb } = await openTestShopDatabase())
  chain = switchableChain(createSettlementReader({ baseRpcUrl: devnet.base.rpcUrl }))
  const deps: PaymentsDeps = {
    x402: {
      rails: [
        devnetBaseRail(devnet),
        {
          network: SOLANA,
          asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
          payTo: 'Hub1111111111111111111111111111111111111111',
          extra: { feePayer: FEE_PAYER },
        },
      ],
      facilitator: { url: devnet.facilitator.url, timeoutMs: 1_500 },
    },
    ledger: createPaymentLedger(db),
    chain: chain.reader,
    leaseSeconds: 5,
  }
  const app = new Hono()
  app.post('/report', (c) =>
    sellTestItem(deps, c.req.raw, {
      price: { amount: PRICE },
      description: 'compatibility report',
      body: 'legacy-v1',
    }),
  )
  // A dynamic price and payee, as the swap rail charges a match.
  app.post('/matches/:id/pay', (c) =>
    sellTestItem(deps, c.req.raw, {
      price: { amount: BigInt(c.req.param('id')) * 1000n, payTo: SPLIT },
      description: `match ${c.req.param('id')}`,
    }),
  )
  ;({ url, close: closeServer } = await serveLocal(app.fetch))
}, 60_000)
afterEach(() => {
  devnet.facilitator.setBehavior('normal')
  chain.restore()
})
afterAll(async () => {
  await closeServer?.()
  await closeDb?.()
  await devnet?.stop()
})

/** POSTs to the shop; `item` names what is bought (without one, the path is the item). */
const post = (path: string, headers: Record<string, string> = {}, item?: string) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(item ? { item } : {}),
  })

const offered = async (path = '/report') => {
  return baseRequirementOf(await post(path))
}

const payee = () => devnet.usdcBalance(devnet.accounts.payee)

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
      payTo: SPLIT,
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
    const before = await devnet.usdcBalance(SPLIT)
    const header = await paymentSignatureHeader(
      devnet.accounts.payer,
      await offered('/matches/7/pay'),
    )
    const response = await post('/matches/7/pay', { 'payment-signature': header })
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ item: '/matches/7/pay', amount: '7000' })
    expect((await devnet.usdcBalance(SPLIT)) - before).toBe(7000n)
  })
})

describe('one payment, one request: retries get the first answer, other requests are refused', () => {
  for (const [version, sign, responseHeader] of [
    ['v2', paymentSignatureHeader, 'payment-response'],
    ['v1', xPaymentHeader, 'x-payment-response'],
  ] as const) {
    test(`behavior: the same ${version} payment for the same request answers the same 200 again, charged once`, async () => {
      const before = await payee()
      const settlements = devnet.facilitator.settlements()
      const name = version === 'v2' ? 'PAYMENT-SIGNATURE' : 'X-PAYMENT'
      const header = { [name]: await sign(devnet.accounts.payer, await offered()) }
      const first = await post('/report', header, `retried ${version}`)
      expect(first.status).toBe(200)
      const firstBody = await first.json()

      const retry = await post('/report', header, `retried ${version}`)
      expect(retry.status).toBe(200)
      expect(await retry.json()).toEqual(firstBody)
      expect(retry.headers.get(responseHeader)).toBe(first.headers.get(responseHeader))
      expect((await payee()) - before).toBe(PRICE)
      expect(devnet.facilitator.settlements() - settlements).toBe(1)
      expect(await countDeliveries(db, `retried ${version}`)).toBe(1)
    })

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

const ledgerRows = async () =>
  rowsOf<{ n: number }>(await db.execute(sql`SELECT count(*)::int AS n FROM payment_ledger`))[0]!.n

describe('refusals: 402 payment not verified, nothing delivered, nothing moved', () => {
  const refused = async (header: Record<string, string>, reason: string) => {
    const before = await payee()
    const delivered = await countDeliveries(db)
    const recorded = await ledgerRows()
    const response = await post('/report', header)
    expect(response.status).toBe(402)
    const body = await response.json()
    expect(body).toMatchObject({ error: 'payment not verified', reason })
    expect(response.headers.get('payment-required')).toBeTruthy()
    expect(await payee()).toBe(before)
    expect(await countDeliveries(db)).toBe(delivered)
    // The claim commits while the facilitator verifies; a refusal withdraws it.
    expect(await ledgerRows()).toBe(recorded)
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
  test('errors: facilitator down or slow: refused, and the same payment (nothing moved) succeeds once it is back', async () => {
    const before = await payee()
    const header = await paymentSignatureHeader(devnet.accounts.payer, await offered())
    devnet.facilitator.setBehavior('down')
    await refused({ 'payment-signature': header }, 'facilitator_unavailable')
    devnet.facilitator.setBehavior({ delayMs: 3_000 })
    await refused({ 'payment-signature': header }, 'facilitator_unavailable')
    devnet.facilitator.setBehavior('normal')
    const served = await post('/report', { 'payment-signature': header })
    expect(served.status).toBe(200)
    expect((await payee()) - before).toBe(PRICE)
  })
})

describe('a lost settle answer: the chain decides, never a 402 that asks to pay again', () => {
  test('behavior: the connection resets after the transfer; the chain shows it: 200 at once with its transaction, charged once', async () => {
    const before = await payee()
    const settlements = devnet.facilitator.settlements()
    const header = {
      'payment-signature': await paymentSignatureHeader(devnet.accounts.payer, await offered()),
    }
    devnet.facilitator.setBehavior({ settle: 'reset' })
    const response = await post('/report', header, 'reset report')
    devnet.facilitator.setBehavior('normal')
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(body).toMatchObject({ item: 'reset report', amount: '5000000' })
    const { transaction } = decodeBase64Json(response.headers.get('payment-response')!) as {
      transaction: Hex
    }
    const mined = await devnet.base.publicClient.getTransactionReceipt({ hash: transaction })
    expect(mined.status).toBe('success')
    expect(mined.to?.toLowerCase()).toBe(devnet.base.usdc.toLowerCase())
    expect(devnet.facilitator.settlements() - settlements).toBe(1)
    expect((await payee()) - before).toBe(PRICE)

    const retry = await post('/report', header, 'reset report')
    expect(retry.status).toBe(200)
    expect(await retry.json()).toEqual(body)
    expect(await countDeliveries(db, 'reset report')).toBe(1)
  })

  test('behavior: a 5xx after the transfer with the chain unreadable: 503 with Retry-After and the reference; the retry gets the 200', async () => {
    const before = await payee()
    const header = {
      'payment-signature': await paymentSignatureHeader(devnet.accounts.payer, await offered()),
    }
    devnet.facilitator.setBehavior({ settle: 'error' })
    chain.cut()
    const pending = await post('/report', header, 'unknown report')
    devnet.facilitator.setBehavior('normal')
    expect(pending.status).toBe(503)
    expect(Number(pending.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await pending.json()).toEqual({
      error: 'payment outcome not known yet: retry with the same payment, do not pay again',
      reference: expect.stringMatching(
        /^x402:eip155:8453:0x[0-9a-f]{40}:0x[0-9a-f]{40}:0x[0-9a-f]{64}$/,
      ),
      retryAfterSeconds: Number(pending.headers.get('retry-after')),
    })
    expect((await payee()) - before).toBe(PRICE)
    expect(await countDeliveries(db, 'unknown report')).toBe(0)

    // Still unreadable: still 503, still not asked to pay again.
    expect((await post('/report', header, 'unknown report')).status).toBe(503)
    chain.restore()
    const served = await post('/report', header, 'unknown report')
    expect(served.status).toBe(200)
    expect(await served.json()).toMatchObject({ item: 'unknown report' })
    expect((await payee()) - before).toBe(PRICE)
    expect(await countDeliveries(db, 'unknown report')).toBe(1)
  })

  test('behavior: the facilitator fails before settling (503 on /settle): 503, and the retry settles once', async () => {
    const before = await payee()
    const header = {
      'payment-signature': await paymentSignatureHeader(devnet.accounts.payer, await offered()),
    }
    devnet.facilitator.setBehavior({ settle: 'down' })
    const pending = await post('/report', header, 'deferred report')
    devnet.facilitator.setBehavior('normal')
    expect(pending.status).toBe(503)
    expect(pending.headers.get('retry-after')).toBeTruthy()
    expect(await payee()).toBe(before)

    const served = await post('/report', header, 'deferred report')
    expect(served.status).toBe(200)
    expect((await payee()) - before).toBe(PRICE)
    expect(await countDeliveries(db, 'deferred report')).toBe(1)
  })
})

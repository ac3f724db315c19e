import { type Devnet, startDevnet } from '@agents/devnet'
import type { Hex } from 'viem'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { decodeBase64Json } from './headers.ts'
import type { LedgerDatabase } from './ledger/ledger.ts'
import { paymentSignatureHeader, xPaymentHeader } from './testing/sign-authorization.ts'
import {
  X402_SHOP_PRICE as PRICE,
  startX402TestShop,
  type X402TestShop,
} from './testing/start-x402-test-shop.ts'
import { countDeliveries } from './testing/test-shop.ts'
import { x402ShopClient } from './testing/x402-shop-client.ts'

// x402 sales when the facilitator fails or its answer is lost, on a devnet of this file's own
// (fault switches, settlement counts). Everything else about the sale: payments.chain.test.ts.

let devnet: Devnet
let shop: X402TestShop
let url: string
let db: LedgerDatabase
let chain: X402TestShop['chain']

beforeAll(async () => {
  devnet = await startDevnet({ tempo: false })
  shop = await startX402TestShop(devnet)
  ;({ url, db, chain } = shop)
}, 60_000)
afterEach(() => {
  devnet.facilitator.setBehavior('normal')
  chain.restore()
})
afterAll(async () => {
  await shop?.close()
  await devnet?.stop()
})

const { post, offered, payee, expectRefused: refused } = x402ShopClient(() => ({ url, devnet, db }))

describe('one payment, one request: a retry of the same request gets the first answer, settled once', () => {
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
  }
})

describe('refusals: 402 payment not verified, nothing delivered, nothing moved', () => {
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

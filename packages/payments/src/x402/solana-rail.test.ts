import { serveLocal } from '@agents/devnet'
import { generateKeyPairSigner } from '@solana/kit'
import { x402Client } from '@x402/core/client'
import type { PaymentRequired } from '@x402/core/types'
import { ExactSvmScheme } from '@x402/svm/exact/client'
import { Hono } from 'hono'
import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest'
import { paymentChallenge } from '../challenge.ts'
import { decodeBase64Json, encodeBase64Json } from '../headers.ts'
import type { LedgerDatabase } from '../ledger/ledger.ts'
import type { PaymentsLogger } from '../payments-deps.ts'
import { paymentsFromEnv } from '../payments-from-env.ts'
import { sellTestItem } from '../testing/sell-test-item.ts'
import { startSolanaLiteSvm } from '../testing/solana-litesvm.ts'
import { countDeliveries, openTestShopDatabase } from '../testing/test-shop.ts'
import { checkPayment } from './check-payment.ts'
import { buildRequirementsV2, type RequirementV2 } from './requirements.ts'
import { createFeePayerSource } from './solana-fee-payer.ts'
import { associatedTokenAccount, readSolanaTransfer } from './solana-transaction.ts'

const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'
const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
const BASE_PAY_TO = '0x00000000000000000000000000000000000000a1'
const PRICE = 500_000n // under the client's default $1 spend cap

/**
 * A Solana JSON-RPC stand-in answering what the official SVM client calls
 * (read in @x402/svm 2.27.0: `fetchMint` = `getAccountInfo` of the mint, base64;
 * `getLatestBlockhash` unless the accept carries `extra.recentBlockhash`).
 */
const startSolanaRpc = async () => {
  const calls: string[] = []
  // SPL Token mint layout (82 bytes): no mint authority, supply, decimals 6, initialized, no freeze authority.
  const mint = Buffer.alloc(82)
  mint.writeBigUInt64LE(10n ** 15n, 36)
  mint.writeUInt8(6, 44)
  mint.writeUInt8(1, 45)
  const blockhash = 'EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N'
  const app = new Hono()
  app.post('/', async (c) => {
    const { id, method, params } = (await c.req.json()) as {
      id: unknown
      method: string
      params: unknown[]
    }
    calls.push(method)
    const context = { slot: 1000 }
    if (method === 'getAccountInfo' && params[0] === USDC_MINT)
      return c.json({
        jsonrpc: '2.0',
        id,
        result: {
          context,
          value: {
            data: [mint.toString('base64'), 'base64'],
            executable: false,
            lamports: 1_461_600,
            owner: TOKEN_PROGRAM,
            rentEpoch: 0,
            space: 82,
          },
        },
      })
    if (method === 'getAccountInfo')
      return c.json({ jsonrpc: '2.0', id, result: { context, value: null } })
    if (method === 'getLatestBlockhash')
      return c.json({
        jsonrpc: '2.0',
        id,
        result: { context, value: { blockhash, lastValidBlockHeight: 2000 } },
      })
    return c.json({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } })
  })
  return { ...(await serveLocal(app.fetch)), calls }
}

/** A facilitator stand-in: `/supported` as told, `/verify` and `/settle` accept and record. */
const startFacilitator = async (feePayer: string) => {
  const state = {
    supported: 'solana' as 'solana' | 'evm only' | 'down',
    supportedCalls: 0,
    verified: [] as Array<{ paymentRequirements: RequirementV2 }>,
  }
  const app = new Hono()
  app.get('/supported', (c) => {
    state.supportedCalls++
    if (state.supported === 'down') return c.json({ error: 'unavailable' }, 503)
    return c.json({
      kinds: [
        { x402Version: 2, scheme: 'exact', network: 'eip155:8453' },
        ...(state.supported === 'solana'
          ? [{ x402Version: 2, scheme: 'exact', network: SOLANA, extra: { feePayer } }]
          : []),
      ],
      extensions: [],
      signers: {},
    })
  })
  app.post('/verify', async (c) => {
    state.verified.push(await c.req.json())
    return c.json({ isValid: true, payer: 'payer' })
  })
  app.post('/settle', (c) =>
    c.json({ success: true, transaction: '5'.repeat(88), network: SOLANA, payer: 'payer' }),
  )
  return { ...(await serveLocal(app.fetch)), state }
}

const quietLogger = () => {
  const lines: Array<[string, string]> = []
  const logger: PaymentsLogger = {
    error: (_details, message) => lines.push(['error', message]),
    warn: (_details, message) => lines.push(['warn', message]),
    info: (_details, message) => lines.push(['info', message]),
  }
  return { logger, lines }
}

let rpc: Awaited<ReturnType<typeof startSolanaRpc>>
let facilitator: Awaited<ReturnType<typeof startFacilitator>>
let feePayer: string
let payee: string
let db: LedgerDatabase
let closeDb: () => Promise<void>

beforeAll(async () => {
  feePayer = (await generateKeyPairSigner()).address
  payee = (await generateKeyPairSigner()).address
  rpc = await startSolanaRpc()
  facilitator = await startFacilitator(feePayer)
  ;({ db, close: closeDb } = await openTestShopDatabase())
}, 60_000)
afterAll(async () => {
  await rpc?.close()
  await facilitator?.close()
  await closeDb?.()
})
beforeEach(() => {
  facilitator.state.supported = 'solana'
  facilitator.state.verified.length = 0
})

const env = (extra: Record<string, string> = {}) => ({
  PAYMENTS_FACILITATOR_URL: facilitator.url,
  PAYMENTS_PAY_TO: BASE_PAY_TO,
  PAYMENTS_SOLANA_PAY_TO: payee,
  ...extra,
})

const offeredNetworks = (deps: ReturnType<typeof paymentsFromEnv>) =>
  paymentChallenge(deps, new Request('http://shop.test/report'), {
    price: { amount: PRICE },
    resource: { url: 'http://shop.test/report', description: 'report' },
  }).offered.map((accept) => accept.network)

/** The official SVM client, paying the 402's Solana accept against the RPC stand-in. */
const svmPay = async (paymentRequired: PaymentRequired) => {
  const signer = await generateKeyPairSigner()
  const client = new x402Client().register(
    'solana:*',
    new ExactSvmScheme(signer, { rpcUrl: rpc.url }),
  )
  client.registerPolicy((_version, accepts) =>
    accepts.filter((accept) => accept.network === SOLANA),
  )
  return { signer, payload: await client.createPaymentPayload(paymentRequired) }
}

describe('Solana rail', () => {
  test('behavior: the Solana accept carries the facilitator fee payer; the official SVM client pays it and our local checks accept the payload', async () => {
    const deps = paymentsFromEnv(env(), { db })
    await deps.ready
    const app = new Hono()
    app.post('/report', (c) =>
      sellTestItem(deps, c.req.raw, { price: { amount: PRICE }, description: 'report' }),
    )
    const shop = await serveLocal(app.fetch)
    try {
      const challenge = await fetch(`${shop.url}/report`, { method: 'POST' })
      expect(challenge.status).toBe(402)
      const paymentRequired = decodeBase64Json(
        challenge.headers.get('payment-required')!,
      ) as PaymentRequired
      const solana = paymentRequired.accepts.find((accept) => accept.network === SOLANA)
      expect(solana).toEqual({
        scheme: 'exact',
        network: SOLANA,
        amount: PRICE.toString(),
        asset: USDC_MINT,
        payTo: payee,
        maxTimeoutSeconds: 300,
        extra: { feePayer },
      })

      rpc.calls.length = 0
      const { signer, payload } = await svmPay(paymentRequired)
      expect(rpc.calls).toEqual(['getAccountInfo', 'getLatestBlockhash'])
      expect(payload.accepted).toEqual(solana)

      // What the client signed, read back from its bytes.
      const transfer = readSolanaTransfer(payload.payload.transaction as string)
      expect(transfer).toEqual({
        feePayer,
        tokenProgram: TOKEN_PROGRAM,
        mint: USDC_MINT,
        destination: associatedTokenAccount(payee, USDC_MINT, TOKEN_PROGRAM),
        authority: signer.address,
        amount: PRICE,
      })
      expect(checkPayment(solana as RequirementV2, payload.accepted, payload.payload)).toEqual({
        ok: true,
        payer: signer.address,
        reference: expect.stringMatching(new RegExp(`^x402:${SOLANA}:[0-9a-f]{64}$`)),
      })

      // Through sell: our requirements (with the fee payer) go to the facilitator; delivered once.
      const paid = await fetch(`${shop.url}/report`, {
        method: 'POST',
        headers: { 'payment-signature': encodeBase64Json(payload) },
        body: JSON.stringify({ item: 'solana report' }),
      })
      expect(paid.status).toBe(200)
      expect(facilitator.state.verified.map((body) => body.paymentRequirements)).toEqual([solana])
      expect(await countDeliveries(db, 'solana report')).toBe(1)
    } finally {
      await shop.close()
    }
  })

  test('errors: local checks refuse a Solana payload for another fee payer, amount, payee or mint', async () => {
    const deps = paymentsFromEnv(env(), { db })
    await deps.ready
    const challenge = paymentChallenge(deps, new Request('http://shop.test/report'), {
      price: { amount: PRICE },
      resource: { url: 'http://shop.test/report', description: 'report' },
    })
    const solana = challenge.offered.find((accept) => accept.network === SOLANA)!
    const paymentRequired = {
      x402Version: 2,
      resource: { url: 'http://shop.test/report' },
      accepts: [solana],
    } as PaymentRequired
    const { payload } = await svmPay(paymentRequired)
    const check = (offered: RequirementV2) =>
      checkPayment(offered, { ...payload.accepted, ...offered }, payload.payload)

    const otherKey = (await generateKeyPairSigner()).address
    expect(check({ ...solana, extra: { feePayer: otherKey } })).toMatchObject({
      ok: false,
      reason: 'malformed_payment',
      detail: "the transaction's fee payer is not the facilitator's",
    })
    expect(check({ ...solana, amount: '500001' })).toMatchObject({
      ok: false,
      reason: 'amount_mismatch',
    })
    expect(check({ ...solana, payTo: otherKey })).toMatchObject({
      ok: false,
      reason: 'payee_mismatch',
    })
    expect(check({ ...solana, asset: otherKey })).toMatchObject({
      ok: false,
      reason: 'asset_mismatch',
    })
    // A client's copy naming another fee payer is refused before the transaction is read.
    expect(
      checkPayment(solana, { ...payload.accepted, extra: { feePayer: otherKey } }, payload.payload),
    ).toMatchObject({ ok: false, reason: 'malformed_payment' })
    expect(checkPayment(solana, payload.accepted, { transaction: 'AAAA' })).toMatchObject({
      ok: false,
      reason: 'malformed_payment',
    })
  })

  test('errors: the official SVM client cannot pay a Solana accept without extra.feePayer (why it is never offered)', async () => {
    const accept = {
      scheme: 'exact',
      network: SOLANA,
      amount: PRICE.toString(),
      asset: USDC_MINT,
      payTo: payee,
      maxTimeoutSeconds: 300,
      extra: {},
    }
    await expect(
      svmPay({
        x402Version: 2,
        resource: { url: 'http://shop.test/r' },
        accepts: [accept],
      } as never),
    ).rejects.toThrow(/feePayer is required/)
  })

  test('errors: a facilitator with no Solana fee payer: Solana is not offered, Base still is, with a warning', async () => {
    facilitator.state.supported = 'evm only'
    const { logger, lines } = quietLogger()
    const deps = paymentsFromEnv(env(), { db, logger })
    await deps.ready
    expect(offeredNetworks(deps)).toEqual(['eip155:8453'])
    expect(lines).toContainEqual([
      'warn',
      'x402 Solana rail not offered: no fee payer from the facilitator',
    ])
  })

  test('errors: facilitator unreachable at start: Base is offered at once; Solana joins when a challenge-triggered retry reads the fee payer', async () => {
    facilitator.state.supported = 'down'
    const { logger, lines } = quietLogger()
    const deps = paymentsFromEnv(env({ PAYMENTS_SOLANA_FEE_PAYER_RETRY_MS: '200' }), {
      db,
      logger,
    })
    await deps.ready
    expect(offeredNetworks(deps)).toEqual(['eip155:8453'])
    expect(lines.filter(([level]) => level === 'warn')).toHaveLength(1)
    // Within the retry window the challenges do not ask again.
    const asked = facilitator.state.supportedCalls
    offeredNetworks(deps)
    expect(facilitator.state.supportedCalls).toBe(asked)

    facilitator.state.supported = 'solana'
    await new Promise((resolve) => setTimeout(resolve, 250))
    // This challenge still goes out without Solana (never waits on the facilitator) and starts the retry.
    expect(offeredNetworks(deps)).toEqual(['eip155:8453'])
    await vi.waitFor(() => expect(offeredNetworks(deps)).toEqual(['eip155:8453', SOLANA]))
    expect(lines).toContainEqual([
      'info',
      'x402 Solana rail offered with the facilitator fee payer',
    ])
  })

  test('errors: a closed facilitator port at start does not stop start-up; the Base rail is offered', async () => {
    const closed = await serveLocal(() => new Response('x'))
    await closed.close()
    const deps = paymentsFromEnv(env({ PAYMENTS_FACILITATOR_URL: closed.url }), { db })
    await deps.ready
    expect(offeredNetworks(deps)).toEqual(['eip155:8453'])
  })
})

describe('buildRequirementsV2', () => {
  test('errors: a Solana rail without extra.feePayer is never offered, whoever assembled the rails', () => {
    const base = { network: 'eip155:8453' as const, asset: USDC_MINT, payTo: BASE_PAY_TO }
    const solana = {
      network: SOLANA as 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
      asset: USDC_MINT,
      payTo: payee,
    }
    expect(buildRequirementsV2([base, solana], { amount: PRICE }).map((r) => r.network)).toEqual([
      'eip155:8453',
    ])
    expect(
      buildRequirementsV2([base, { ...solana, extra: { feePayer } }], { amount: PRICE }).map(
        (r) => [r.network, r.extra],
      ),
    ).toEqual([
      ['eip155:8453', {}],
      [SOLANA, { feePayer }],
    ])
  })
})

describe('createFeePayerSource', () => {
  test('behavior: refreshes a known fee payer every refreshMs; keeps it while the facilitator is unreachable, drops it when the facilitator stops naming one', async () => {
    let clock = 0
    const source = createFeePayerSource({
      facilitator: { url: facilitator.url },
      network: SOLANA,
      refreshMs: 1_000,
      retryMs: 100,
      now: () => clock,
    })
    expect(await source.refresh()).toBe(feePayer)
    const asked = facilitator.state.supportedCalls

    clock = 999
    source.refreshIfDue()
    expect(facilitator.state.supportedCalls).toBe(asked)

    facilitator.state.supported = 'down'
    clock = 1_000
    source.refreshIfDue()
    await vi.waitFor(() => expect(facilitator.state.supportedCalls).toBe(asked + 1))
    expect(await source.refresh()).toBe(feePayer)
    expect(source.current()).toBe(feePayer)

    facilitator.state.supported = 'evm only'
    expect(await source.refresh()).toBeUndefined()
    expect(source.current()).toBeUndefined()
  })
})

describe('Solana settlement (LiteSVM in process)', () => {
  test('behavior: a whole Solana payment: the 402 names the real facilitator fee payer, the official SVM client pays, the facilitator verifies and settles on the SVM, delivered once, the payee credited', async () => {
    const chain = await startSolanaLiteSvm({ mint: USDC_MINT })
    const app = new Hono()
    let shop: Awaited<ReturnType<typeof serveLocal>> | undefined
    try {
      const deps = paymentsFromEnv(
        {
          PAYMENTS_FACILITATOR_URL: chain.facilitatorUrl,
          PAYMENTS_PAY_TO: BASE_PAY_TO,
          PAYMENTS_SOLANA_PAY_TO: payee,
        },
        { db },
      )
      await deps.ready
      app.post('/report', (c) =>
        sellTestItem(deps, c.req.raw, { price: { amount: PRICE }, description: 'report' }),
      )
      shop = await serveLocal(app.fetch)
      const buyer = await generateKeyPairSigner()
      chain.fund(buyer.address, 10_000_000n)
      chain.fund(payee, 0n)

      const challenge = await fetch(`${shop.url}/report`, { method: 'POST' })
      const paymentRequired = decodeBase64Json(
        challenge.headers.get('payment-required')!,
      ) as PaymentRequired
      const solana = paymentRequired.accepts.find((accept) => accept.network === SOLANA)!
      expect(solana.extra).toEqual({ feePayer: chain.feePayer })

      const client = new x402Client().register(
        'solana:*',
        new ExactSvmScheme(buyer, { rpcUrl: chain.rpcUrl }),
      )
      client.registerPolicy((_version, accepts) =>
        accepts.filter((accept) => accept.network === SOLANA),
      )
      const payload = await client.createPaymentPayload(paymentRequired)
      const paid = await fetch(`${shop.url}/report`, {
        method: 'POST',
        headers: { 'payment-signature': encodeBase64Json(payload) },
        body: JSON.stringify({ item: 'settled on the svm' }),
      })
      expect(paid.status).toBe(200)
      const receipt = decodeBase64Json(paid.headers.get('payment-response')!) as {
        success: boolean
        transaction: string
        network: string
        payer: string
      }
      expect(receipt).toMatchObject({ success: true, network: SOLANA, payer: buyer.address })
      expect(receipt.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/)
      expect(chain.balance(payee)).toBe(PRICE)
      expect(chain.balance(buyer.address)).toBe(10_000_000n - PRICE)
      expect(await countDeliveries(db, 'settled on the svm')).toBe(1)

      // The same payment again: the same answer, no second transfer.
      const again = await fetch(`${shop.url}/report`, {
        method: 'POST',
        headers: { 'payment-signature': encodeBase64Json(payload) },
        body: JSON.stringify({ item: 'settled on the svm' }),
      })
      expect(again.status).toBe(200)
      expect(chain.balance(payee)).toBe(PRICE)
      expect(await countDeliveries(db, 'settled on the svm')).toBe(1)
    } finally {
      await shop?.close()
      await chain.close()
    }
  })
})

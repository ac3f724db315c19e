import { type Devnet, serveLocal } from '@agents/devnet'
import { sharedDevnet } from '@agents/devnet/testing'
import { refusal } from '@agents/service-kit'
import { Hono } from 'hono'
import { Mppx as ClientMppx, tempo as clientTempo } from 'mppx/client'
import { createClient, http, keccak256 } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createSettlementReader } from './chain/settlement-reader.ts'
import { createPaymentLedger, type LedgerDatabase } from './ledger/ledger.ts'
import { createMppAdapter } from './mpp/create-mpp-adapter.ts'
import type { PaymentsDeps } from './payments-deps.ts'
import { saleResponse } from './sale-response.ts'
import { sell } from './sell.ts'
import { devnetBaseRail } from './testing/devnet-rail.ts'
import { paymentSignatureHeader } from './testing/sign-authorization.ts'
import {
  countDeliveries,
  openTestShopDatabase,
  testAnswer,
  testProduct,
} from './testing/test-shop.ts'

// Pull mode chosen per route on the real Tempo devnet: the server broadcasts the
// payer-signed transfer, and the route may refuse the paying wallet before anything moves.
let devnet: Devnet
let url: string
let closeServer: () => Promise<void>
let db: LedgerDatabase
let closeDb: () => Promise<void>
let reader: ReturnType<typeof createSettlementReader>

beforeAll(async () => {
  devnet = await sharedDevnet()
  const tempo = devnet.tempo!
  ;({ db, close: closeDb } = await openTestShopDatabase())
  reader = createSettlementReader({
    baseRpcUrl: devnet.base.rpcUrl,
    tempo: { rpcUrl: tempo.rpcUrl, chainId: tempo.chainId },
  })
  const client = createClient({
    chain: tempo.publicClient.chain!,
    transport: http(tempo.rpcUrl),
    pollingInterval: 50,
  })
  const deps: PaymentsDeps = {
    x402: { rails: [devnetBaseRail(devnet)], facilitator: { url: devnet.facilitator.url } },
    // The adapter's default stays push: only the route below asks for pull.
    mpp: createMppAdapter({
      secretKey: 'test-secret-test-secret-test-secret-0123',
      realm: 'pull-test',
      chainId: tempo.chainId,
      currency: tempo.currency,
      recipient: devnet.accounts.payee,
      getClient: () => client,
    }),
    ledger: createPaymentLedger(db),
    chain: reader,
    leaseSeconds: 5,
  }
  const app = new Hono()
  // Sells to one wallet only (the `x-wallet` header stands in for a signed-in session).
  app.post('/mine', async (c) => {
    const { item } = (await c.req.json()) as { item: string }
    const wallet = c.req.header('x-wallet') ?? ''
    const outcome = await sell(deps, c.req.raw, {
      price: { amount: 200_000n },
      resource: { url: 'http://shop.test/mine', description: 'pull only' },
      product: testProduct('pull_item'),
      order: { item },
      requestKey: `mine:${item}`,
      mppModes: ['pull'],
      payer: (payer) =>
        payer.toLowerCase() === wallet.toLowerCase() ? undefined : refusal(403, 'not your wallet'),
    })
    return saleResponse(outcome, { answer: testAnswer })
  })
  app.post('/push', async (c) =>
    saleResponse(
      await sell(deps, c.req.raw, {
        price: { amount: 200_000n },
        resource: { url: 'http://shop.test/push', description: 'push' },
        product: testProduct('push_item'),
        order: { item: 'push' },
        requestKey: 'push',
      }),
      { answer: testAnswer },
    ),
  )
  ;({ url, close: closeServer } = await serveLocal(app.fetch))
}, 60_000)
afterAll(async () => {
  await closeServer?.()
  await closeDb?.()
  await devnet?.stop()
})

const post = (path: string, item: string, headers: Record<string, string> = {}) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ item }),
  })

/** What mppx/client makes from the 402 in pull mode: the signed transfer, not broadcast. */
const pullCredential = async (path: string, item: string, headers: Record<string, string>) => {
  const tempo = devnet.tempo!
  const mppx = ClientMppx.create({
    polyfill: false,
    methods: [
      clientTempo.charge({
        account: devnet.accounts.payer,
        mode: 'pull',
        getClient: () =>
          createClient({ chain: tempo.publicClient.chain!, transport: http(tempo.rpcUrl) }),
      }),
    ],
  })
  return mppx.createCredential(await post(path, item, headers))
}

const tempoOf = (address: `0x${string}`) => devnet.tempoBalance!(address)
const ledgerRows = async () =>
  (
    (await db.execute('SELECT count(*)::int AS n FROM payment_ledger' as never)) as never as {
      rows: Array<{ n: number }>
    }
  ).rows[0]!.n

describe('MPP pull mode, per route', () => {
  test('behavior: the route offers pull only; the server broadcasts the payer-signed transfer; the payer is its signer', async () => {
    const me = { 'x-wallet': devnet.accounts.payer.address }
    const challenge = await post('/mine', 'first', me)
    expect(challenge.status).toBe(402)
    const request = /request="([^"]*)"/.exec(challenge.headers.get('www-authenticate')!)![1]!
    expect(
      JSON.parse(Buffer.from(request, 'base64url').toString('utf8')).methodDetails,
    ).toMatchObject({ supportedModes: ['pull'] })
    const before = await tempoOf(devnet.accounts.payee)
    const paid = await devnet.mppFetch!(devnet.accounts.payer, 'pull')(`${url}/mine`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...me },
      body: JSON.stringify({ item: 'first' }),
    })
    expect(paid.status).toBe(200)
    expect(await paid.json()).toMatchObject({ item: 'first', payer: devnet.accounts.payer.address })
    expect(paid.headers.get('payment-receipt')).not.toBeNull()
    expect((await tempoOf(devnet.accounts.payee)) - before).toBe(200_000n)
    expect(await countDeliveries(db, 'first')).toBe(1)
  })

  test('errors: another wallet than the route wants is refused before anything is recorded or moved (MPP pull and x402)', async () => {
    const someoneElse = { 'x-wallet': devnet.accounts.payer2.address }
    const rows = await ledgerRows()
    const payee = await tempoOf(devnet.accounts.payee)
    const payer = await tempoOf(devnet.accounts.payer.address)
    const authorization = await pullCredential('/mine', 'not mine', someoneElse)
    const refused = await post('/mine', 'not mine', { ...someoneElse, authorization })
    expect(refused.status).toBe(403)
    expect(await tempoOf(devnet.accounts.payee)).toBe(payee)
    expect(await tempoOf(devnet.accounts.payer.address)).toBe(payer)
    // x402: the EIP-3009 `from` is checked before the facilitator is asked.
    const usdc = await devnet.usdcBalance(devnet.accounts.payer.address)
    const required = JSON.parse(
      Buffer.from(
        (await post('/mine', 'not mine', someoneElse)).headers.get('payment-required')!,
        'base64',
      ).toString('utf8'),
    ) as { accepts: never[] }
    const signed = await paymentSignatureHeader(devnet.accounts.payer, required.accepts[0]!)
    const x402Refused = await post('/mine', 'not mine', {
      ...someoneElse,
      'payment-signature': signed,
    })
    expect(x402Refused.status).toBe(403)
    expect(await devnet.usdcBalance(devnet.accounts.payer.address)).toBe(usdc)
    expect(await ledgerRows()).toBe(rows)
    expect(await countDeliveries(db, 'not mine')).toBe(0)
  })

  test('errors: a push credential to a pull-only route is refused before it is recorded', async () => {
    const push = await fetch(`${url}/push`, { method: 'POST' })
    const tempo = devnet.tempo!
    const mppx = ClientMppx.create({
      polyfill: false,
      methods: [
        clientTempo.charge({
          account: devnet.accounts.payer,
          mode: 'push',
          getClient: () =>
            createClient({ chain: tempo.publicClient.chain!, transport: http(tempo.rpcUrl) }),
        }),
      ],
    })
    const authorization = await mppx.createCredential(push)
    const rows = await ledgerRows()
    const refused = await post('/mine', 'pushed', {
      'x-wallet': devnet.accounts.payer.address,
      authorization,
    })
    expect(refused.status).toBe(402)
    expect(await refused.json()).toMatchObject({
      reason: 'mpp_credential_rejected',
      detail: 'this route takes pull payments only, not push',
    })
    expect(await ledgerRows()).toBe(rows)
  })

  test('behavior: a pull payment whose broadcast never arrived is sent again when the chain is asked, once', async () => {
    const me = { 'x-wallet': devnet.accounts.payer.address }
    const authorization = await pullCredential('/mine', 'lost broadcast', me)
    const payload = JSON.parse(
      Buffer.from(authorization.replace(/^Payment /, ''), 'base64url').toString('utf8'),
    ) as { payload: { signature: `0x${string}` } }
    const signed = payload.payload.signature
    const proof = {
      rail: 'mpp' as const,
      chainId: devnet.tempo!.chainId,
      hash: keccak256(signed),
      signed,
      currency: devnet.tempo!.currency,
      transfers: [{ to: devnet.accounts.payee, amount: '200000' }],
    }
    const before = await tempoOf(devnet.accounts.payee)
    expect(await reader.read(proof, new Date())).toEqual({
      status: 'used',
      transaction: proof.hash,
    })
    expect(await reader.read(proof, new Date())).toEqual({
      status: 'used',
      transaction: proof.hash,
    })
    expect((await tempoOf(devnet.accounts.payee)) - before).toBe(200_000n)
  })
})

import { type Devnet, serveLocal } from '@agents/devnet'
import { sharedDevnet } from '@agents/devnet/testing'
import { Hono } from 'hono'
import { Receipt } from 'mppx'
import { Mppx as ClientMppx, tempo as clientTempo } from 'mppx/client'
import { createClient, custom, http, type PrivateKeyAccount } from 'viem'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { createSettlementReader } from './chain/settlement-reader.ts'
import { decodeBase64Json } from './headers.ts'
import { createPaymentLedger, type LedgerDatabase } from './ledger/ledger.ts'
import { createMppAdapter } from './mpp/create-mpp-adapter.ts'
import type { PaymentsDeps } from './payments-deps.ts'
import { devnetBaseRail } from './testing/devnet-rail.ts'
import { sellTestItem } from './testing/sell-test-item.ts'
import { switchableChain } from './testing/switchable-chain.ts'
import { createTempoBroadcastFake } from './testing/tempo-broadcast-fake.ts'
import { countDeliveries, openTestShopDatabase } from './testing/test-shop.ts'

const SPLIT_TO = '0x6000000000000000000000000000000000000006'
let devnet: Devnet
let url: string
let closeServer: () => Promise<void>
let db: LedgerDatabase
let closeDb: () => Promise<void>
let fake: ReturnType<typeof createTempoBroadcastFake>
let flakyChain: ReturnType<typeof switchableChain>

beforeAll(async () => {
  devnet = await sharedDevnet()
  const tempo = devnet.tempo!
  ;({ db, close: closeDb } = await openTestShopDatabase())
  const tempoSettings = {
    secretKey: 'test-secret-test-secret-test-secret-0123',
    realm: 'payments-test',
    chainId: tempo.chainId,
    currency: tempo.currency,
    recipient: devnet.accounts.payee,
  }
  const ledger = createPaymentLedger(db)
  const chain = createSettlementReader({
    baseRpcUrl: devnet.base.rpcUrl,
    tempo: { rpcUrl: tempo.rpcUrl, chainId: tempo.chainId },
  })
  const deps: PaymentsDeps = {
    x402: {
      rails: [devnetBaseRail(devnet)],
      facilitator: { url: devnet.facilitator.url },
    },
    mpp: createMppAdapter({
      ...tempoSettings,
      getClient: () =>
        createClient({
          chain: tempo.publicClient.chain!,
          transport: http(tempo.rpcUrl),
          pollingInterval: 50,
        }),
    }),
    ledger,
    chain,
    leaseSeconds: 5,
  }
  // Pull mode: this server broadcasts the payer-signed transaction, through
  // a client whose broadcast is replaced, so tests can count broadcasts (mpp-pull.chain.test.ts
  // runs pull payments on the devnet chain itself).
  fake = createTempoBroadcastFake({ chain: tempo.publicClient.chain!, rpcUrl: tempo.rpcUrl })
  const pullDeps: PaymentsDeps = {
    mpp: createMppAdapter({ ...tempoSettings, getClient: () => fake.client, modes: ['pull'] }),
    ledger,
    chain,
    leaseSeconds: 5,
  }
  // The same shop whose Tempo RPC (mppx's reads and the settlement reader) can be cut.
  flakyChain = switchableChain(chain)
  const upstream = http(tempo.rpcUrl)({ chain: tempo.publicClient.chain! })
  const flakyClient = createClient({
    chain: tempo.publicClient.chain!,
    pollingInterval: 50,
    transport: custom({
      request: ({ method, params }) =>
        flakyChain.down()
          ? Promise.reject(new Error('Tempo RPC unreachable (test switch)'))
          : upstream.request({ method, params } as never),
    }),
  })
  const flakyDeps: PaymentsDeps = {
    mpp: createMppAdapter({ ...tempoSettings, getClient: () => flakyClient }),
    ledger,
    chain: flakyChain.reader,
    leaseSeconds: 5,
  }
  const app = new Hono()
  app.post('/flaky', (c) =>
    sellTestItem(flakyDeps, c.req.raw, { price: { amount: 150_000n }, description: 'flaky' }),
  )
  app.post('/report', (c) =>
    sellTestItem(deps, c.req.raw, { price: { amount: 250_000n }, description: 'report' }),
  )
  app.post('/split', (c) =>
    sellTestItem(deps, c.req.raw, {
      price: { amount: 400_000n, splits: [{ recipient: SPLIT_TO, amount: 100_000n }] },
      description: 'split',
    }),
  )
  app.post('/pull', (c) =>
    sellTestItem(pullDeps, c.req.raw, { price: { amount: 100_000n }, description: 'pull' }),
  )
  ;({ url, close: closeServer } = await serveLocal(app.fetch))
}, 60_000)
afterAll(async () => {
  await closeServer?.()
  await closeDb?.()
  await devnet?.stop()
})

/** The parameters of a `WWW-Authenticate: Payment k="v", ...` header. */
const parseChallenge = (header: string) =>
  Object.fromEntries([...header.matchAll(/(\w+)="([^"]*)"/g)].map((match) => [match[1], match[2]]))

const post = (path: string, headers: Record<string, string> = {}, item?: string) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(item ? { item } : {}),
  })

/**
 * An MPP credential for one request, as mppx/client makes it from the 402:
 * push broadcasts the payer's transfer now; pull only signs it.
 */
const credentialFor = async (
  path: string,
  item: string,
  { mode = 'push', account = devnet.accounts.payer } = {} as {
    mode?: 'push' | 'pull'
    account?: PrivateKeyAccount
  },
) => {
  const tempo = devnet.tempo!
  const client = createClient({
    chain: tempo.publicClient.chain!,
    transport: http(tempo.rpcUrl),
    pollingInterval: 50,
  })
  const mppx = ClientMppx.create({
    polyfill: false,
    methods: [clientTempo.charge({ account, mode, getClient: () => client })],
  })
  const challenge = await post(path, {}, item)
  expect(challenge.status).toBe(402)
  return { authorization: await mppx.createCredential(challenge) }
}

const payee = () => devnet.tempoBalance!(devnet.accounts.payee)

describe('MPP on the Tempo devnet', () => {
  test('default: one 402 carries the x402 header and the MPP Tempo charge challenge', async () => {
    const response = await post('/split')
    expect(response.status).toBe(402)
    expect(decodeBase64Json(response.headers.get('payment-required')!)).toMatchObject({
      x402Version: 2,
    })
    const header = response.headers.get('www-authenticate')!
    expect(header.startsWith('Payment ')).toBe(true)
    const challenge = parseChallenge(header)
    expect(challenge).toMatchObject({ method: 'tempo', intent: 'charge', realm: 'payments-test' })
    const request = JSON.parse(Buffer.from(challenge.request!, 'base64url').toString('utf8'))
    expect(request).toMatchObject({
      amount: '400000',
      currency: devnet.tempo!.currency,
      recipient: devnet.accounts.payee,
      methodDetails: {
        chainId: devnet.tempo!.chainId,
        splits: [{ recipient: SPLIT_TO, amount: '100000' }],
        supportedModes: ['push'],
      },
    })
  })

  test('behavior: push payment with mppx/client: 200, Payment-Receipt, the recipient paid exactly, delivered once', async () => {
    const before = await payee()
    const response = await devnet.mppFetch!()(`${url}/report`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ item: 'mpp report' }),
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ item: 'mpp report', amount: '250000' })
    expect(response.headers.get('payment-receipt')).toBeTruthy()
    expect((await payee()) - before).toBe(250_000n)
    expect(await countDeliveries(db, 'mpp report')).toBe(1)
  })

  test('behavior: splits pay their share; the recipient gets the rest', async () => {
    const recipientBefore = await payee()
    const splitBefore = await devnet.tempoBalance!(SPLIT_TO)
    const response = await devnet.mppFetch!()(`${url}/split`, { method: 'POST' })
    expect(response.status).toBe(200)
    expect((await devnet.tempoBalance!(SPLIT_TO)) - splitBefore).toBe(100_000n)
    expect((await payee()) - recipientBefore).toBe(300_000n)
  })

  test('behavior: a push credential sent again for the same request gets the same 200 and receipt; nothing moves again', async () => {
    const credential = await credentialFor('/split', 'split again')
    const first = await post('/split', credential, 'split again')
    expect(first.status).toBe(200)
    const firstBody = await first.json()
    const before = await payee()

    const retry = await post('/split', credential, 'split again')
    expect(retry.status).toBe(200)
    expect(await retry.json()).toEqual(firstBody)
    expect(retry.headers.get('payment-receipt')).toBe(first.headers.get('payment-receipt'))
    expect(await payee()).toBe(before)
    expect(await countDeliveries(db, 'split again')).toBe(1)
  })

  test('errors: a push credential presented to another request is refused (payment_already_used), nothing delivered', async () => {
    const credential = await credentialFor('/split', 'split once')
    expect((await post('/split', credential, 'split once')).status).toBe(200)

    const other = await post('/split', credential, 'split twice')
    expect(other.status).toBe(402)
    expect(await other.json()).toMatchObject({
      error: 'payment not verified',
      reason: 'payment_already_used',
    })
    expect(other.headers.get('www-authenticate')).toBeTruthy()
    expect(await countDeliveries(db, 'split twice')).toBe(0)
  })

  test('errors: a push credential for another price is refused by mppx, nothing delivered', async () => {
    // Signed for /report (0.25), presented to /split (0.40): the transfer does not cover it.
    const credential = await credentialFor('/report', 'underpaid')
    const response = await post('/split', credential, 'underpaid')
    expect(response.status).toBe(402)
    expect(await response.json()).toMatchObject({
      error: 'payment not verified',
      reason: 'mpp_credential_rejected',
    })
    expect(await countDeliveries(db, 'underpaid')).toBe(0)
  })

  test('errors: a garbage credential is refused', async () => {
    const response = await post('/report', { authorization: 'Payment not-a-credential' })
    expect(response.status).toBe(402)
    expect(await response.json()).toMatchObject({
      error: 'payment not verified',
      reason: 'mpp_credential_rejected',
    })
  })

  test('behavior: the Tempo RPC unreachable when a pushed payment arrives: 503 with Retry-After; the retry finds the transfer on-chain and delivers once', async () => {
    const before = await payee()
    const credential = await credentialFor('/flaky', 'flaky push')
    expect((await payee()) - before).toBe(150_000n)
    flakyChain.cut()
    // mppx logs the failed chain read it reports as an internal error.
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {})
    let pending: Response
    try {
      pending = await post('/flaky', credential, 'flaky push')
    } finally {
      flakyChain.restore()
      quiet.mockRestore()
    }
    expect(pending.status).toBe(503)
    expect(Number(pending.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await pending.json()).toMatchObject({
      reference: expect.stringMatching(/^mpp:\d+:0x[0-9a-f]{64}$/),
    })
    expect(await countDeliveries(db, 'flaky push')).toBe(0)

    const served = await post('/flaky', credential, 'flaky push')
    expect(served.status).toBe(200)
    expect(Receipt.deserialize(served.headers.get('payment-receipt')!).status).toBe('success')
    const again = await post('/flaky', credential, 'flaky push')
    expect(await again.json()).toEqual(await served.json())
    // Recovered from the chain, the receipt (with its timestamp) is fixed: every retry gets the same.
    expect(again.headers.get('payment-receipt')).toBe(served.headers.get('payment-receipt'))
    expect(await countDeliveries(db, 'flaky push')).toBe(1)
    expect((await payee()) - before).toBe(150_000n)
  })

  describe('pull mode, with the broadcast replaced (counted, not executed)', () => {
    test('behavior: the challenge offers pull; the server broadcasts the payer-signed transfer once', async () => {
      const challenge = await post('/pull')
      const request = JSON.parse(
        Buffer.from(
          parseChallenge(challenge.headers.get('www-authenticate')!).request!,
          'base64url',
        ).toString(),
      )
      expect(request.methodDetails.supportedModes).toEqual(['pull'])

      const before = fake.broadcasts.length
      const credential = await credentialFor('/pull', 'pulled', { mode: 'pull' })
      const response = await post('/pull', credential, 'pulled')
      expect(response.status).toBe(200)
      expect(response.headers.get('payment-receipt')).toBeTruthy()
      const body = await response.json()
      expect(fake.broadcasts).toHaveLength(before + 1)
      const broadcast = fake.broadcasts.at(-1)!
      expect(broadcast.from.toLowerCase()).toBe(devnet.accounts.payer.address.toLowerCase())
      expect(body).toMatchObject({ item: 'pulled', amount: '100000' })
      const receipt = Receipt.deserialize(response.headers.get('payment-receipt')!)
      expect(receipt.reference.toLowerCase()).toBe(broadcast.hash.toLowerCase())
      expect(body.payer.toLowerCase()).toBe(devnet.accounts.payer.address.toLowerCase())
      const transfer = broadcast.calls.find((call) => call.functionName.startsWith('transfer'))!
      expect(transfer.to.toLowerCase()).toBe(devnet.tempo!.currency.toLowerCase())
      expect(transfer.args[0]).toBe(devnet.accounts.payee)
      expect(transfer.args[1]).toBe(100_000n)

      // The same credential again: the same answer, not broadcast again.
      const retry = await post('/pull', credential, 'pulled')
      expect(retry.status).toBe(200)
      expect(await retry.json()).toEqual(body)
      expect(fake.broadcasts).toHaveLength(before + 1)
      expect(await countDeliveries(db, 'pulled')).toBe(1)
    })

    test('errors: a pull credential presented to another request is refused and not broadcast again', async () => {
      const credential = await credentialFor('/pull', 'pulled once', { mode: 'pull' })
      expect((await post('/pull', credential, 'pulled once')).status).toBe(200)
      const before = fake.broadcasts.length
      const replay = await post('/pull', credential, 'pulled twice')
      expect(replay.status).toBe(402)
      expect(await replay.json()).toMatchObject({
        error: 'payment not verified',
        reason: 'payment_already_used',
      })
      expect(fake.broadcasts).toHaveLength(before)
    })

    test('errors: a pull credential presented to a push-only route is refused, nothing broadcast; it still pays where it was meant to', async () => {
      // mppx's client will not offer pull to a push-only challenge, so send one made for /pull.
      const credential = await credentialFor('/pull', 'misrouted', { mode: 'pull' })
      const before = fake.broadcasts.length
      const response = await post('/report', credential, 'misrouted')
      expect(response.status).toBe(402)
      expect(await response.json()).toMatchObject({
        error: 'payment not verified',
        reason: 'mpp_credential_rejected',
      })
      expect(fake.broadcasts).toHaveLength(before)
      // Refused, nothing moved: the same credential may be presented again.
      const served = await post('/pull', credential, 'misrouted')
      expect(served.status).toBe(200)
      expect(fake.broadcasts).toHaveLength(before + 1)
    })
  })
})

import { type Devnet, serveLocal, startDevnet } from '@agents/devnet'
import { Hono } from 'hono'
import { Mppx as ClientMppx, tempo as clientTempo } from 'mppx/client'
import { createClient, http } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { PaymentsDeps } from './charge.ts'
import { decodeBase64Json } from './headers.ts'
import { createMppAdapter } from './mpp/create-mpp-adapter.ts'
import { type PayerVariables, paid } from './paid.ts'
import { createMemoryReceiptStore } from './receipt-store.ts'
import { devnetBaseRail } from './testing/devnet-rail.ts'
import { createTempoBroadcastFake } from './testing/tempo-broadcast-fake.ts'

const SPLIT_TO = '0x6000000000000000000000000000000000000006'
let devnet: Devnet
let url: string
let closeServer: () => Promise<void>
const seen: string[] = []
let fake: ReturnType<typeof createTempoBroadcastFake>

beforeAll(async () => {
  devnet = await startDevnet()
  const tempo = devnet.tempo!
  const store = createMemoryReceiptStore()
  const tempoSettings = {
    secretKey: 'test-secret-test-secret-test-secret-0123',
    realm: 'payments-test',
    chainId: tempo.chainId,
    currency: tempo.currency,
    recipient: devnet.accounts.payee,
  }
  const deps: PaymentsDeps = {
    x402: {
      rails: [devnetBaseRail(devnet)],
      facilitator: { url: devnet.facilitator.url },
    },
    mpp: createMppAdapter(
      {
        ...tempoSettings,
        getClient: () =>
          createClient({
            chain: tempo.publicClient.chain!,
            transport: http(tempo.rpcUrl),
            pollingInterval: 50,
          }),
      },
      { store },
    ),
    store,
  }
  // Pull mode: this server broadcasts the payer-signed transaction, through
  // a client whose broadcast is replaced (anvil cannot execute pull payments).
  fake = createTempoBroadcastFake({ chain: tempo.publicClient.chain!, rpcUrl: tempo.rpcUrl })
  const pullDeps: PaymentsDeps = {
    mpp: createMppAdapter(
      {
        ...tempoSettings,
        getClient: () => fake.client,
        modes: ['pull'],
      },
      { store },
    ),
    store,
  }
  const app = new Hono<{ Variables: PayerVariables }>()
  // Remembers each credential so a test can replay one.
  app.use(async (c, next) => {
    const authorization = c.req.header('authorization')
    if (authorization) seen.push(authorization)
    await next()
  })
  app.post('/report', paid(deps, { price: { amount: 250_000n }, description: 'report' }), (c) =>
    c.json({ ok: true }),
  )
  app.post(
    '/split',
    paid(deps, {
      price: { amount: 400_000n, splits: [{ recipient: SPLIT_TO, amount: 100_000n }] },
    }),
    (c) => c.json({ ok: true }),
  )
  app.post('/pull', paid(pullDeps, { price: { amount: 100_000n }, description: 'pull' }), (c) =>
    c.json({ payer: c.get('payment').payer, transaction: c.get('payment').transaction }),
  )
  const served = await serveLocal(app.fetch)
  url = served.url
  closeServer = served.close
}, 60_000)
afterAll(async () => {
  await closeServer?.()
  await devnet?.stop()
})

/** The parameters of a `WWW-Authenticate: Payment k="v", ...` header. */
const parseChallenge = (header: string) =>
  Object.fromEntries([...header.matchAll(/(\w+)="([^"]*)"/g)].map((match) => [match[1], match[2]]))

describe('MPP on the Tempo devnet', () => {
  test('default: one 402 carries the x402 header and the MPP Tempo charge challenge', async () => {
    const response = await fetch(`${url}/split`, { method: 'POST' })
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

  test('behavior: push payment with mppx/client: 200, Payment-Receipt, the recipient paid exactly', async () => {
    const before = await devnet.tempoBalance!(devnet.accounts.payee)
    const response = await devnet.mppFetch!()(`${url}/report`, { method: 'POST' })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ ok: true })
    expect(response.headers.get('payment-receipt')).toBeTruthy()
    expect((await devnet.tempoBalance!(devnet.accounts.payee)) - before).toBe(250_000n)
  })

  test('behavior: splits pay their share; the recipient gets the rest', async () => {
    const recipientBefore = await devnet.tempoBalance!(devnet.accounts.payee)
    const splitBefore = await devnet.tempoBalance!(SPLIT_TO)
    const response = await devnet.mppFetch!()(`${url}/split`, { method: 'POST' })
    expect(response.status).toBe(200)
    expect((await devnet.tempoBalance!(SPLIT_TO)) - splitBefore).toBe(100_000n)
    expect((await devnet.tempoBalance!(devnet.accounts.payee)) - recipientBefore).toBe(300_000n)
  })

  test('errors: a credential replayed is refused and nothing is fulfilled', async () => {
    const credential = seen.at(-1)!
    const replay = await fetch(`${url}/split`, {
      method: 'POST',
      headers: { authorization: credential },
    })
    expect(replay.status).toBe(402)
    const body = await replay.json()
    expect(body.error).toBe('payment not verified')
    expect(['payment_already_used', 'mpp_credential_rejected']).toContain(body.reason)
    expect(replay.headers.get('www-authenticate')).toBeTruthy()
  })

  test('errors: a garbage credential is refused', async () => {
    const response = await fetch(`${url}/report`, {
      method: 'POST',
      headers: { authorization: 'Payment not-a-credential' },
    })
    expect(response.status).toBe(402)
    expect(await response.json()).toMatchObject({
      error: 'payment not verified',
      reason: 'mpp_credential_rejected',
    })
  })

  describe('pull mode, with the broadcast replaced (anvil cannot execute pull payments)', () => {
    const pullFetch = () => {
      const tempo = devnet.tempo!
      const client = createClient({
        chain: tempo.publicClient.chain!,
        transport: http(tempo.rpcUrl),
        pollingInterval: 50,
      })
      return ClientMppx.create({
        polyfill: false,
        methods: [
          clientTempo.charge({
            account: devnet.accounts.payer,
            mode: 'pull',
            getClient: () => client,
          }),
        ],
      }).fetch as typeof fetch
    }

    test('behavior: the challenge offers pull; the server broadcasts the payer-signed transfer once', async () => {
      const challenge = await fetch(`${url}/pull`, { method: 'POST' })
      const request = JSON.parse(
        Buffer.from(
          parseChallenge(challenge.headers.get('www-authenticate')!).request!,
          'base64url',
        ).toString(),
      )
      expect(request.methodDetails.supportedModes).toEqual(['pull'])

      const before = fake.broadcasts.length
      const response = await pullFetch()(`${url}/pull`, { method: 'POST' })
      expect(response.status).toBe(200)
      expect(response.headers.get('payment-receipt')).toBeTruthy()
      const body = await response.json()
      expect(fake.broadcasts).toHaveLength(before + 1)
      const broadcast = fake.broadcasts.at(-1)!
      expect(broadcast.from.toLowerCase()).toBe(devnet.accounts.payer.address.toLowerCase())
      expect(body.transaction.toLowerCase()).toBe(broadcast.hash.toLowerCase())
      expect(body.payer.toLowerCase()).toBe(devnet.accounts.payer.address.toLowerCase())
      const transfer = broadcast.calls.find((call) => call.functionName.startsWith('transfer'))!
      expect(transfer.to.toLowerCase()).toBe(devnet.tempo!.currency.toLowerCase())
      expect(transfer.args[0]).toBe(devnet.accounts.payee)
      expect(transfer.args[1]).toBe(100_000n)
    })

    test('errors: a pull credential replayed is refused and not broadcast again', async () => {
      const before = fake.broadcasts.length
      const replay = await fetch(`${url}/pull`, {
        method: 'POST',
        headers: { authorization: seen.at(-1)! },
      })
      expect(replay.status).toBe(402)
      expect((await replay.json()).error).toBe('payment not verified')
      expect(fake.broadcasts).toHaveLength(before)
    })

    test('errors: a pull credential presented to a push-only route is refused, nothing broadcast', async () => {
      // mppx's client will not offer pull to a push-only challenge, so send the captured one.
      const before = fake.broadcasts.length
      const response = await fetch(`${url}/report`, {
        method: 'POST',
        headers: { authorization: seen.at(-1)! },
      })
      expect(response.status).toBe(402)
      expect(await response.json()).toMatchObject({
        error: 'payment not verified',
        reason: 'mpp_credential_rejected',
      })
      expect(fake.broadcasts).toHaveLength(before)
    })
  })
})

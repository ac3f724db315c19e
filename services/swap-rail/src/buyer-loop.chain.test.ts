import { createServer } from 'node:net'
import type { Devnet } from '@agents/devnet'
import { sharedDevnet } from '@agents/devnet/testing'
import { decodeBase64Json, PAYMENT_REQUIRED_HEADER } from '@agents/payments'
import { paymentSignatureHeader } from '@agents/payments/testing'
import { createLogger, postJson, serve } from '@agents/service-kit'
import { createSellerProxy } from '@agents/swap-seller'
import { type FakeUpstream, startFakeUpstream } from '@agents/swap-seller/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { feeTerms } from './matches/match-terms.ts'
import type { SwapRail } from './start.ts'
import { startTestSwapRail } from './testing.ts'

const MODEL = 'gpt-test'

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

let devnet: Devnet
let rail: SwapRail
let upstream: FakeUpstream
let seller: { url: string; close: () => Promise<void> }
let endpoint: string

beforeAll(async () => {
  devnet = await sharedDevnet()
  rail = await startTestSwapRail({ devnet })
  // Each call uses 600k tokens: a 1-MTok grant pays for two calls, the third is refused.
  upstream = await startFakeUpstream({
    promptTokens: 100_000,
    completionTokens: 500_000,
    honourCap: false,
  })
  const port = await freePort()
  endpoint = `http://localhost:${port}/v1`
  const app = createSellerProxy({
    hubJwksUrl: `${rail.url}/.well-known/jwks.json`,
    endpoint,
    upstream: { baseUrl: upstream.url, apiKey: 'sk-seller-own-key' },
  })
  seller = await serve(app, {
    port,
    host: '127.0.0.1',
    logger: createLogger({ name: 'seller', level: 'silent' }),
  })
}, 60_000)

afterAll(async () => {
  await seller?.close()
  await upstream?.close()
  await rail?.close()
  await devnet?.stop()
})

const postOffer = (mtok: number, priceUsd: string, model = MODEL) =>
  postJson(`${rail.url}/v1/offers`, {
    endpoint,
    payTo: devnet.accounts.payee2,
    model,
    mtok,
    priceUsd,
  })

const chat = (bearer: string, model = MODEL) =>
  postJson(
    `${endpoint}/chat/completions`,
    { model, messages: [{ role: 'user', content: 'hello' }] },
    { authorization: `Bearer ${bearer}` },
  )

describe('the buyer loop over HTTP on the devnet', () => {
  it('x402 on Base: offer, intent, 402, pay the split, grant, seller calls until the MTok are spent', async () => {
    const offer = await postOffer(2, '0.25')
    expect(offer.status).toBe(201)
    const listed = await fetch(`${rail.url}/v1/offers?model=${MODEL}`).then((r) => r.json())
    expect(listed.offers.map((o: { id: string }) => o.id)).toContain(offer.json.offer.id)

    const intent = await postJson(`${rail.url}/v1/intents`, {
      model: MODEL,
      mtok: 1,
      maxPriceUsd: '1',
    })
    expect(intent.status).toBe(201)
    const match = intent.json.match
    expect(match).toMatchObject({
      status: 'awaiting_payment',
      mtok: 1,
      gross: '250000',
      unitPriceUsd: '0.25',
    })
    expect(match.splitAddress).toBe(offer.json.offer.splitAddress)
    const { sellerNet, fee } = feeTerms(250_000n, 100)
    expect(match).toMatchObject({ sellerNet: sellerNet.toString(), fee: fee.toString() })

    // The live 402: exactly one Base accept, the gross to the split; and the MPP challenge.
    const bare = await fetch(`${rail.url}/v1/matches/${match.id}/pay`, { method: 'POST' })
    expect(bare.status).toBe(402)
    const required = decodeBase64Json(bare.headers.get(PAYMENT_REQUIRED_HEADER)!) as {
      accepts: Array<{ network: string; amount: string; payTo: string }>
    }
    expect(required.accepts).toHaveLength(1)
    expect(required.accepts[0]).toMatchObject({
      network: 'eip155:8453',
      amount: '250000',
      payTo: match.splitAddress,
    })
    expect(bare.headers.get('www-authenticate')).toMatch(/^Payment .*method="tempo"/)

    const splitBefore = await devnet.usdcBalance(match.splitAddress)
    const paid = await devnet.x402Fetch()(`${rail.url}/v1/matches/${match.id}/pay`, {
      method: 'POST',
    })
    expect(paid.status).toBe(200)
    const paidMatch = await paid.json()
    expect(paidMatch.status).toBe('paid')
    expect(paidMatch.grant).toMatchObject({ endpoint, model: MODEL, mtok: 1 })
    expect(await devnet.usdcBalance(match.splitAddress)).toBe(splitBefore + 250_000n)

    // Paid once: a second payment is refused before anything is settled.
    const again = await fetch(`${rail.url}/v1/matches/${match.id}/pay`, { method: 'POST' })
    expect(again.status).toBe(409)

    // Reading the match hands out a fresh grant.
    const read = await fetch(`${rail.url}/v1/matches/${match.id}`).then((r) => r.json())
    expect(read.grant.bearer).not.toBe(paidMatch.grant.bearer)

    const first = await chat(read.grant.bearer)
    expect(first.status).toBe(200)
    expect(upstream.calls.at(-1)!.authorization).toBe('Bearer sk-seller-own-key')
    expect((await chat(paidMatch.grant.bearer)).status).toBe(200)
    const spent = await chat(read.grant.bearer)
    expect(spent.status).toBe(403)
    expect(spent.json.error).toBe('grant spent')
  })

  it('MPP push on Tempo: the seller share arrives as a split of the same payment', async () => {
    const model = 'gpt-test-tempo'
    await postOffer(1, '0.5', model)
    const intent = await postJson(`${rail.url}/v1/intents`, { model, mtok: 1, maxPriceUsd: '0.5' })
    const match = intent.json.match
    expect(match.gross).toBe('500000')
    const sellerBefore = await devnet.tempoBalance!(devnet.accounts.payee2)
    const hubBefore = await devnet.tempoBalance!(devnet.accounts.payee)
    const paid = await devnet.mppFetch!()(`${rail.url}/v1/matches/${match.id}/pay`, {
      method: 'POST',
    })
    expect(paid.status).toBe(200)
    const body = await paid.json()
    expect(body.payment.rail).toBe('mpp')
    expect(await devnet.tempoBalance!(devnet.accounts.payee2)).toBe(
      sellerBefore + BigInt(match.sellerNet),
    )
    expect(await devnet.tempoBalance!(devnet.accounts.payee)).toBe(hubBefore + BigInt(match.fee))
    expect((await chat(body.grant.bearer, model)).status).toBe(200)
  })

  it('a payment to another payee is refused and the match stays unpaid', async () => {
    const model = 'gpt-test-wrong-payee'
    await postOffer(1, '0.1', model)
    const match = (await postJson(`${rail.url}/v1/intents`, { model, mtok: 1, maxPriceUsd: '0.1' }))
      .json.match
    const accept = match.challenge.x402.accepts[0]
    // Signed to the seller directly instead of the split.
    const header = await paymentSignatureHeader(devnet.accounts.payer, {
      ...accept,
      payTo: devnet.accounts.payee2,
    })
    const response = await fetch(`${rail.url}/v1/matches/${match.id}/pay`, {
      method: 'POST',
      headers: { 'payment-signature': header },
    })
    expect(response.status).toBe(402)
    const view = await fetch(`${rail.url}/v1/matches/${match.id}`).then((r) => r.json())
    expect(view.status).toBe('awaiting_payment')
    expect(view.grant).toBeNull()
  })

  it('two payments racing for one match: one is settled, the other refused before settling', async () => {
    const model = 'gpt-test-race'
    await postOffer(1, '0.3', model)
    const match = (await postJson(`${rail.url}/v1/intents`, { model, mtok: 1, maxPriceUsd: '0.3' }))
      .json.match
    const accept = match.challenge.x402.accepts[0]
    const payers = [devnet.accounts.payer, devnet.accounts.payer2]
    const before = await Promise.all(payers.map((payer) => devnet.usdcBalance(payer.address)))
    const splitBefore = await devnet.usdcBalance(match.splitAddress)
    const headers = await Promise.all(payers.map((payer) => paymentSignatureHeader(payer, accept)))
    const answers = await Promise.all(
      headers.map((header) =>
        fetch(`${rail.url}/v1/matches/${match.id}/pay`, {
          method: 'POST',
          headers: { 'payment-signature': header },
        }),
      ),
    )
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409])
    expect(await devnet.usdcBalance(match.splitAddress)).toBe(splitBefore + 300_000n)
    const after = await Promise.all(payers.map((payer) => devnet.usdcBalance(payer.address)))
    const spent = before.map((value, index) => value - after[index]!).sort()
    expect(spent).toEqual([0n, 300_000n])
  })
})

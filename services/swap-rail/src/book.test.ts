import { testBackends } from '@agents/service-kit/db'
import { GrantError, verifyGrant } from '@agents/swap-seller'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SwapRail } from './start.ts'
import { SWAP_TEST_DATABASE, startTestSwapRail, TEST_DATABASE_URL } from './testing.ts'

const seller = privateKeyToAccount(generatePrivateKey())
const stranger = privateKeyToAccount(generatePrivateKey())

const server = TEST_DATABASE_URL
const backends = testBackends(server, SWAP_TEST_DATABASE)

describe.each(backends)('the book on $name', ({ open }) => {
  let rail: SwapRail
  let drop: () => Promise<void>
  let modelCount = 0

  beforeAll(async () => {
    const database = await open()
    drop = database.drop
    rail = await startTestSwapRail({ databaseUrl: database.url })
  })
  afterAll(async () => {
    await rail?.close()
    await drop?.()
  })

  const send = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${rail.url}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    })
    // biome-ignore lint/suspicious/noExplicitAny: tests read JSON by path
    return { status: response.status, json: (await response.json()) as any }
  }
  const freshModel = () => `model-${++modelCount}`
  const offer = (model: string, mtok: number, priceUsd: string) =>
    send('POST', '/v1/offers', {
      endpoint: 'https://seller.example/v1',
      payTo: seller.address,
      model,
      mtok,
      priceUsd,
    })
  const intent = (model: string, mtok: number, maxPriceUsd: string) =>
    send('POST', '/v1/intents', { model, mtok, maxPriceUsd })
  const sql = (text: string, params: unknown[] = []) =>
    rail.deps.database.client.query(text, params)

  it('matches the cheapest offer first, then the oldest of one price', async () => {
    const model = freshModel()
    const dear = (await offer(model, 5, '2')).json.offer
    const cheapOld = (await offer(model, 1, '1')).json.offer
    const cheapNew = (await offer(model, 1, '1.000000')).json.offer
    const first = await intent(model, 1, '2')
    const second = await intent(model, 1, '2')
    const third = await intent(model, 1, '2')
    expect([first, second, third].map((r) => r.json.match.offerId)).toEqual([
      cheapOld.id,
      cheapNew.id,
      dear.id,
    ])
    expect(third.json.match).toMatchObject({ unitPriceUsd: '2', gross: '2000000', mtok: 1 })
    const filled = await send('GET', `/v1/offers/${cheapOld.id}`)
    expect(filled.json).toMatchObject({ status: 'filled', remainingMtok: 0 })
    const listed = await send('GET', `/v1/offers?model=${model}`)
    expect(listed.json.offers.map((o: { id: string }) => o.id)).toEqual([dear.id])
  })

  it('never sells more than the remaining capacity, and never above the limit', async () => {
    const model = freshModel()
    const posted = (await offer(model, 5, '1')).json.offer
    expect((await intent(model, 3, '1')).json.match).not.toBeNull()
    const tooBig = await intent(model, 3, '1')
    expect(tooBig.json).toMatchObject({ intent: { status: 'open' }, match: null })
    const tooCheap = await intent(model, 1, '0.999999')
    expect(tooCheap.json.match).toBeNull()
    expect((await intent(model, 2, '1')).json.match.offerId).toBe(posted.id)
    expect((await send('GET', `/v1/offers/${posted.id}`)).json).toMatchObject({
      status: 'filled',
      remainingMtok: 0,
    })
  })

  it('gives a new offer to the intents already waiting for it, oldest first', async () => {
    const model = freshModel()
    const a = (await intent(model, 2, '3')).json.intent
    const b = (await intent(model, 2, '3')).json.intent
    const c = (await intent(model, 1, '0.5')).json.intent // limit below the offer: keeps waiting
    const posted = await offer(model, 3, '1')
    expect(posted.status).toBe(201)
    expect(posted.json.matches.map((m: { intentId: string }) => m.intentId)).toEqual([a.id])
    expect(posted.json.offer.remainingMtok).toBe(1)
    expect((await send('GET', `/v1/intents/${a.id}`)).json).toMatchObject({
      status: 'matched',
      matchId: posted.json.matches[0].id,
    })
    expect((await send('GET', `/v1/intents/${b.id}`)).json).toMatchObject({
      status: 'open',
      matchId: null,
    })
    expect((await send('GET', `/v1/intents/${c.id}`)).json.status).toBe('open')
  })

  it('expires an unpaid match: its capacity returns, the offer reopens, waiting intents match', async () => {
    const model = freshModel()
    const posted = (await offer(model, 2, '1')).json.offer
    const match = (await intent(model, 2, '1')).json.match
    const waiting = (await intent(model, 2, '1')).json.intent
    expect((await send('GET', `/v1/offers/${posted.id}`)).json.status).toBe('filled')

    await sql(`UPDATE swap_matches SET pay_by = now() - interval '1 second' WHERE id = $1`, [
      match.id,
    ])
    const late = await send('POST', `/v1/matches/${match.id}/pay`)
    expect(late.status).toBe(410)
    const result = await rail.sweepNow()
    expect(result).toMatchObject({ ran: true, expiredMatches: 1, rematched: 1 })
    expect((await send('GET', `/v1/matches/${match.id}`)).json).toMatchObject({
      status: 'expired',
      grant: null,
      challenge: null,
    })
    const rematched = await send('GET', `/v1/intents/${waiting.id}`)
    expect(rematched.json.status).toBe('matched')
    expect((await send('GET', `/v1/offers/${posted.id}`)).json).toMatchObject({
      status: 'filled',
      remainingMtok: 0,
    })
  })

  it('a match held for a payment in flight is not expired by the sweep', async () => {
    const model = freshModel()
    await offer(model, 1, '1')
    const match = (await intent(model, 1, '1')).json.match
    await sql(
      `UPDATE swap_matches SET pay_by = now() - interval '1 second', settling_reference = 'x402:held-by-a-payment-in-flight' WHERE id = $1`,
      [match.id],
    )
    await rail.sweepNow()
    expect((await send('GET', `/v1/matches/${match.id}`)).json.status).toBe('awaiting_payment')
  })

  it('expires offers and intents after their TTL', async () => {
    const model = freshModel()
    const posted = (await offer(model, 1, '1')).json.offer
    const waiting = (await intent(model, 1, '0.5')).json.intent
    await sql(`UPDATE swap_offers SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      posted.id,
    ])
    await sql(`UPDATE swap_intents SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      waiting.id,
    ])
    // An expired offer is not matched even before the sweep marks it.
    expect((await intent(model, 1, '1')).json.match).toBeNull()
    const result = await rail.sweepNow()
    expect(result.ran && result.expiredOffers >= 1 && result.expiredIntents >= 1).toBe(true)
    expect((await send('GET', `/v1/offers/${posted.id}`)).json.status).toBe('expired')
    expect((await send('GET', `/v1/intents/${waiting.id}`)).json.status).toBe('expired')
  })

  it("cancels an open offer only on payTo's signature over the message naming it", async () => {
    const model = freshModel()
    const posted = (await offer(model, 4, '1')).json.offer
    const read = await send('GET', `/v1/offers/${posted.id}`)
    expect(read.json.cancelMessage).toBe(`Cancel swap-rail offer ${posted.id}`)
    const forged = await stranger.signMessage({ message: read.json.cancelMessage })
    expect(
      (await send('POST', `/v1/offers/${posted.id}/cancel`, { signature: forged })).status,
    ).toBe(403)
    // payTo's signature over another offer's message does not cancel this one.
    const other = await seller.signMessage({
      message: 'Cancel swap-rail offer 00000000-0000-4000-8000-000000000000',
    })
    expect(
      (await send('POST', `/v1/offers/${posted.id}/cancel`, { signature: other })).status,
    ).toBe(403)
    const signature = await seller.signMessage({ message: read.json.cancelMessage })
    const cancelled = await send('POST', `/v1/offers/${posted.id}/cancel`, { signature })
    expect(cancelled.status).toBe(200)
    expect(cancelled.json.status).toBe('cancelled')
    const again = await send('POST', `/v1/offers/${posted.id}/cancel`, { signature })
    expect(again).toMatchObject({ status: 409, json: { error: 'offer is cancelled' } })
    expect((await intent(model, 1, '1')).json.match).toBeNull()
    expect(
      (await send('POST', '/v1/offers/00000000-0000-4000-8000-000000000000/cancel', { signature }))
        .status,
    ).toBe(404)
  })

  it('hands out fresh grants during the redemption window only; sellers can check them', async () => {
    const model = freshModel()
    await offer(model, 1, '1')
    const match = (await intent(model, 1, '1')).json.match
    // Payment itself is tested on the devnet (buyer-loop.chain.test.ts); here only the clock matters.
    await sql(`UPDATE swap_matches SET status = 'paid', paid_at = now() WHERE id = $1`, [match.id])
    const paid = (await send('GET', `/v1/matches/${match.id}`)).json
    expect(paid.grant).toMatchObject({ endpoint: 'https://seller.example/v1', model, mtok: 1 })
    const hubJwksUrl = `${rail.url}/.well-known/jwks.json`
    const claims = await verifyGrant(paid.grant.bearer, {
      hubJwksUrl,
      endpoint: 'https://seller.example/v1',
      issuer: rail.url,
    })
    expect(claims).toMatchObject({ matchId: match.id, model, mtok: 1 })
    await expect(
      verifyGrant(paid.grant.bearer, { hubJwksUrl, endpoint: 'https://other.example/v1' }),
    ).rejects.toMatchObject({ reason: 'wrong_audience' })
    const stale = await rail.deps.grants.issue(
      { matchId: match.id, model, mtok: 1, endpoint: 'https://seller.example/v1' },
      new Date(Date.now() - 3_600_000),
    )
    await expect(
      verifyGrant(stale.bearer, { hubJwksUrl, endpoint: 'https://seller.example/v1' }),
    ).rejects.toBeInstanceOf(GrantError)

    await sql(`UPDATE swap_matches SET paid_at = now() - interval '25 hours' WHERE id = $1`, [
      match.id,
    ])
    const over = (await send('GET', `/v1/matches/${match.id}`)).json
    expect(over.grant).toBeNull()
    expect(over.next).toMatch(/redemption window ended/)
  })

  it('answers 404 for unknown or malformed ids', async () => {
    for (const path of [
      '/v1/matches/00000000-0000-4000-8000-000000000000',
      '/v1/matches/not-a-uuid',
      '/v1/offers/123',
      '/v1/intents/00000000-0000-4000-8000-000000000000',
    ]) {
      const response = await send('GET', path)
      expect(response.status).toBe(404)
      expect(response.json.error).toMatch(/^no such/)
    }
    expect((await send('POST', '/v1/matches/nope/pay')).status).toBe(404)
  })
})

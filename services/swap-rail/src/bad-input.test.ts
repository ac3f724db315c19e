import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SwapRail } from './start.ts'
import { startTestSwapRail } from './testing.ts'

let rail: SwapRail
beforeAll(async () => {
  // The production rule: no host is exempt (the other tests allow localhost sellers).
  rail = await startTestSwapRail({ env: { SWAP_DEV_ENDPOINT_HOSTS: '' } })
})
afterAll(() => rail?.close())

const PAY_TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const goodOffer = {
  endpoint: 'https://seller.example/v1',
  payTo: PAY_TO,
  model: 'fuzz-model',
  mtok: 5,
  priceUsd: '1.5',
}
const goodIntent = { model: 'fuzz-model', mtok: 1, maxPriceUsd: '0.01' }

const send = async (method: string, path: string, body?: string) => {
  const response = await fetch(`${rail.url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body }),
  })
  const text = await response.text()
  let json: { error?: unknown; issues?: unknown } | undefined
  try {
    json = JSON.parse(text)
  } catch {}
  return { status: response.status, json, text }
}
const rowCounts = async () => {
  const { rows } = await rail.deps.database.client.query(
    `SELECT (SELECT count(*) FROM swap_offers)::int AS offers,
            (SELECT count(*) FROM swap_intents)::int AS intents,
            (SELECT count(*) FROM swap_matches)::int AS matches`,
  )
  return rows[0]
}

describe('every limit is enforced with a 400 that names the field, and nothing is written', () => {
  const refusedOffers: Array<[string, Record<string, unknown>]> = [
    ['http endpoint', { endpoint: 'http://seller.example/v1' }],
    ['loopback literal', { endpoint: 'https://127.0.0.1/v1' }],
    ['private literal', { endpoint: 'https://10.1.2.3/v1' }],
    ['private literal (172.16/12)', { endpoint: 'https://172.20.0.1/v1' }],
    ['link-local (metadata)', { endpoint: 'https://169.254.169.254/latest' }],
    ['IPv6 loopback', { endpoint: 'https://[::1]/v1' }],
    ['IPv6 unique-local', { endpoint: 'https://[fd00::1]/v1' }],
    ['IPv4-mapped IPv6 loopback', { endpoint: 'https://[::ffff:127.0.0.1]/v1' }],
    ['decimal loopback', { endpoint: 'https://2130706433/v1' }],
    ['localhost', { endpoint: 'https://localhost/v1' }],
    ['credentials', { endpoint: 'https://user:pw@seller.example/v1' }],
    ['not a URL', { endpoint: 'seller.example' }],
    ['payTo not an address', { payTo: '0x1234' }],
    ['mtok zero', { mtok: 0 }],
    ['mtok fractional', { mtok: 1.5 }],
    ['mtok above the limit', { mtok: 100_001 }],
    ['price zero', { priceUsd: '0' }],
    ['price negative', { priceUsd: '-1' }],
    ['price with 7 decimals', { priceUsd: '0.0000001' }],
    ['price above the limit', { priceUsd: '1000.000001' }],
    ['price as exponent', { priceUsd: '1e3' }],
    ['model empty', { model: '' }],
    ['model with spaces', { model: 'gpt 4' }],
    ['model too long', { model: 'm'.repeat(129) }],
    ['unknown field', { extra: true }],
  ]
  it.each(refusedOffers)('offer: %s', async (_, change) => {
    const before = await rowCounts()
    const answer = await send('POST', '/v1/offers', JSON.stringify({ ...goodOffer, ...change }))
    expect(answer.status).toBe(400)
    expect(answer.json).toMatchObject({ error: 'invalid offer' })
    expect(JSON.stringify(answer.json?.issues)).toContain(Object.keys(change)[0]!)
    expect(await rowCounts()).toEqual(before)
  })

  const refusedIntents: Array<[string, Record<string, unknown>]> = [
    ['mtok zero', { mtok: 0 }],
    ['mtok above the limit', { mtok: 100_001 }],
    ['max price with 7 decimals', { maxPriceUsd: '1.0000001' }],
    ['max price zero', { maxPriceUsd: 0 }],
    ['buyer not an address', { buyer: 'alice' }],
    ['unknown field', { priceUsd: '1' }],
  ]
  it.each(refusedIntents)('intent: %s', async (_, change) => {
    const before = await rowCounts()
    const answer = await send('POST', '/v1/intents', JSON.stringify({ ...goodIntent, ...change }))
    expect(answer.status).toBe(400)
    expect(answer.json).toMatchObject({ error: 'invalid intent' })
    expect(await rowCounts()).toEqual(before)
  })

  it('accepts exactly 6 decimals and JSON numbers for prices', async () => {
    const answer = await send(
      'POST',
      '/v1/offers',
      JSON.stringify({ ...goodOffer, priceUsd: 0.000001 }),
    )
    expect(answer.status).toBe(201)
    expect((answer.json as { offer: { priceUsd: string } }).offer.priceUsd).toBe('0.000001')
  })

  it('malformed JSON, wrong media type, oversize body and bad queries', async () => {
    expect((await send('POST', '/v1/intents', '{')).status).toBe(400)
    const text = await fetch(`${rail.url}/v1/intents`, { method: 'POST', body: 'x' })
    expect(text.status).toBe(415)
    const big = await send(
      'POST',
      '/v1/offers',
      JSON.stringify({ ...goodOffer, model: 'x'.repeat(70_000) }),
    )
    expect(big.status).toBe(413)
    expect((await send('GET', '/v1/offers?limit=0')).status).toBe(400)
    expect((await send('GET', '/v1/offers?status=gone')).status).toBe(400)
    expect((await send('POST', '/v1/offers/abc/cancel', '{"signature":"nothex"}')).status).toBe(400)
    expect((await send('DELETE', '/v1/offers')).status).toBe(405)
  })
})

describe('property: no input makes the rail answer 5xx', () => {
  const anyValue = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom('', '0', '-1', '1e999', '0x', PAY_TO, 'https://a.example/v1', null, 1e308, -0),
  )
  const offerLike = fc.record(
    {
      endpoint: fc.oneof(fc.webUrl(), anyValue),
      payTo: fc.oneof(fc.constant(PAY_TO), fc.stringMatching(/^0x[0-9a-fA-F]{0,42}$/), anyValue),
      model: fc.oneof(fc.string(), anyValue),
      mtok: fc.oneof(fc.integer(), fc.double(), anyValue),
      priceUsd: fc.oneof(fc.stringMatching(/^-?\d{0,14}(\.\d{0,8})?$/), fc.double(), anyValue),
      extra: anyValue,
    },
    { requiredKeys: [] },
  )
  const intentLike = fc.record(
    {
      model: fc.oneof(fc.string(), anyValue),
      mtok: fc.oneof(fc.integer(), anyValue),
      maxPriceUsd: fc.oneof(fc.stringMatching(/^-?\d{0,14}(\.\d{0,8})?$/), anyValue),
      buyer: fc.oneof(fc.constant(PAY_TO), anyValue),
    },
    { requiredKeys: [] },
  )
  const path = fc.oneof(
    fc.constantFrom('/v1/offers', '/v1/intents'),
    fc.uuid().map((id) => `/v1/offers/${id}/cancel`),
    fc.string().map((id) => `/v1/matches/${encodeURIComponent(id)}/pay`),
    fc.string().map((id) => `/v1/offers/${encodeURIComponent(id)}/cancel`),
  )

  it('random bodies on every write route', async () => {
    await fc.assert(
      fc.asyncProperty(
        path,
        fc.oneof(offerLike, intentLike, anyValue).map((value) => JSON.stringify(value) ?? 'null'),
        async (route, body) => {
          const answer = await send('POST', route, body)
          expect(answer.status, `${route} ${body} -> ${answer.text}`).toBeLessThan(500)
          if (answer.status >= 400) expect(typeof answer.json?.error).toBe('string')
        },
      ),
      { numRuns: 300 },
    )
  })

  it('random ids and queries on every read route', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/v1/offers/', '/v1/intents/', '/v1/matches/', '/v1/offers?'),
        fc.string(),
        async (prefix, tail) => {
          const answer = await send('GET', prefix + encodeURIComponent(tail).replace(/%3D/g, '='))
          expect(answer.status).toBeLessThan(500)
        },
      ),
      { numRuns: 200 },
    )
  })
})

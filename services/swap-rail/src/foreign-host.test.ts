import { postJson } from '@agents/service-kit'
import { mcpToolCall, sendRaw, walkForeignHost } from '@agents/service-kit/bad-input'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SwapRail } from './start.ts'
import { startTestSwapRail } from './testing.ts'

const PAY_TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
// MPP too, so that its WWW-Authenticate challenge is searched as well (issuing one reads no chain).
const MPP = {
  PAYMENTS_MPP_SECRET: 'foreign-host-test-secret-0123456789',
  PAYMENTS_TEMPO_RPC_URL: 'http://127.0.0.1:9',
}
const HOSTILE = { host: 'evil.example', 'x-forwarded-host': 'evil.example' }

// No absolute URL comes from the request: every route of /openapi.json (the 402s of
// POST /v1/pay and a live match's pay route, the discovery document, llms.txt, skill.md),
// and the MCP tools, sent with Host, X-Forwarded-Host and Forwarded naming evil.example.
describe.each([
  { name: 'BASE_URL unset (the listening address)', env: MPP },
  { name: 'BASE_URL set', env: { ...MPP, BASE_URL: 'https://rail.example' } },
])('a request naming another host, $name', ({ env }) => {
  let rail: SwapRail
  let base: string
  let ids: { offer: string; intent: string; match: string }
  beforeAll(async () => {
    rail = await startTestSwapRail({ env })
    base = 'BASE_URL' in env ? env.BASE_URL : rail.url
    const offer = await postJson(`${rail.url}/v1/offers`, {
      endpoint: 'https://localhost/v1',
      payTo: PAY_TO,
      model: 'host-model',
      mtok: 5,
      priceUsd: '1.5',
    })
    const intent = await postJson(`${rail.url}/v1/intents`, {
      model: 'host-model',
      mtok: 1,
      maxPriceUsd: '2',
    })
    expect(intent.json.match?.id).toBeTypeOf('string')
    ids = { offer: offer.json.offer.id, intent: intent.json.intent.id, match: intent.json.match.id }
  }, 60_000)
  afterAll(() => rail?.close())

  it('finds evil.example in no answer of any route', async () => {
    const { operations, statuses, leaks } = await walkForeignHost({
      baseUrl: rail.url,
      samples: {
        endpoint: 'https://localhost/v1',
        payTo: PAY_TO,
        buyer: PAY_TO,
        model: 'walk-model',
        mtok: 1,
        priceUsd: '1.5',
        maxPriceUsd: '2',
        signature: `0x${'ab'.repeat(65)}`,
      },
      operationSamples: {
        'GET /v1/offers/{id}': { id: ids.offer },
        'POST /v1/offers/{id}/cancel': { id: ids.offer },
        'GET /v1/intents/{id}': { id: ids.intent },
        'GET /v1/matches/{id}': { id: ids.match },
        'POST /v1/matches/{id}/pay': { id: ids.match },
      },
      requests: [
        mcpToolCall('swap_get_match', { matchId: ids.match }),
        mcpToolCall('swap_pay_challenge', { matchId: ids.match }),
        mcpToolCall('swap_list_offers', {}),
      ],
    })
    expect(operations).toEqual(
      expect.arrayContaining(['POST /v1/pay', 'GET /.well-known/x402', 'GET /llms.txt']),
    )
    expect(leaks).toEqual([])
    // The walk got where absolute URLs are written.
    expect(statuses).toMatchObject({
      'POST /v1/pay [no credential]': 402,
      'POST /v1/matches/{id}/pay [no credential]': 402,
      'GET /v1/matches/{id} [no credential]': 200,
      'GET /.well-known/x402 [no credential]': 200,
      'GET /llms.txt [no credential]': 200,
      'GET /skill.md [no credential]': 200,
      'MCP swap_pay_challenge': 200,
    })
  }, 60_000)

  it("names the rail's base URL in the 402s and the discovery document", async () => {
    const probe = await sendRaw(rail.url, { method: 'POST', path: '/v1/pay', headers: HOSTILE })
    const required = JSON.parse(
      Buffer.from(headerOf(probe, 'payment-required'), 'base64').toString(),
    )
    expect(required.resource.url).toBe(`${base}/v1/pay`)
    const pay = await sendRaw(rail.url, {
      method: 'POST',
      path: `/v1/matches/${ids.match}/pay`,
      headers: HOSTILE,
    })
    expect(headerOf(pay, 'www-authenticate')).toMatch(/^Payment /)
    const paid = JSON.parse(Buffer.from(headerOf(pay, 'payment-required'), 'base64').toString())
    expect(paid.resource.url).toBe(`${base}/v1/matches/${ids.match}/pay`)
    const discovery = await sendRaw(rail.url, {
      method: 'GET',
      path: '/.well-known/x402',
      headers: HOSTILE,
    })
    expect(
      JSON.parse(discovery.text).resources.map((r: { resource: string }) => r.resource),
    ).toEqual([`${base}/v1/pay`, `${base}/v1/matches/{id}/pay`])
  })
})

const headerOf = ({ rawHeaders }: { rawHeaders: string[] }, name: string) =>
  rawHeaders[
    rawHeaders.findIndex((part, index) => index % 2 === 0 && part.toLowerCase() === name) + 1
  ] ?? ''

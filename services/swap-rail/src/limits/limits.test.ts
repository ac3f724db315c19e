import { randomUUID } from 'node:crypto'
import { testBackends } from '@agents/service-kit/db'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SwapRail } from '../start.ts'
import { SWAP_TEST_DATABASE, startTestSwapRail, TEST_DATABASE_URL } from '../testing.ts'

// Small limits, so each is met in a few requests. Each test is its own client:
// the rail believes one proxy (TRUST_FORWARDED_FOR=1), and the test is that
// proxy, naming the client in X-Forwarded-For.
const ENV = {
  TRUST_FORWARDED_FOR: '1',
  RATE_LIMIT_READ: '4/60',
  RATE_LIMIT_ANONYMOUS_WRITE: '6/60',
  RATE_LIMIT_CHALLENGE: '3/60',
  RATE_LIMIT_UNKNOWN_MATCH: '2/60',
  SWAP_MAX_OPEN_OFFERS_PER_SELLER: '2',
  SWAP_MAX_OPEN_OFFERS_PER_CLIENT: '3',
  SWAP_MAX_OPEN_INTENTS_PER_CLIENT: '2',
}
const OFFER_TTL = 604_800
const PAYMENT_WINDOW = 900

describe.each(testBackends(TEST_DATABASE_URL, SWAP_TEST_DATABASE))(
  'limits and book bounds on $name',
  ({ open }) => {
    let rail: SwapRail
    let drop: () => Promise<void>
    let clients = 0
    beforeAll(async () => {
      const database = await open()
      drop = database.drop
      rail = await startTestSwapRail({ databaseUrl: database.url, env: ENV })
    }, 60_000)
    afterAll(async () => {
      await rail?.close()
      await drop?.()
    })

    /** A client of its own address, and what it sends. */
    const newClient = () => {
      const address = `203.0.113.${++clients}`
      const send = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(`${rail.url}${path}`, {
          method,
          headers: {
            'x-forwarded-for': address,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        })
        return {
          status: response.status,
          headers: response.headers,
          // biome-ignore lint/suspicious/noExplicitAny: tests read JSON by path
          json: (await response.json()) as any,
        }
      }
      const offer = (payTo: string, model: string, mtok = 1) =>
        send('POST', '/v1/offers', {
          endpoint: 'https://seller.example/v1',
          payTo,
          model,
          mtok,
          priceUsd: '1',
        })
      const intent = (model: string) =>
        send('POST', '/v1/intents', { model, mtok: 1, maxPriceUsd: '1' })
      return { address, send, offer, intent }
    }
    const sql = (text: string, params: unknown[] = []) =>
      rail.deps.database.client.query(text, params)
    const seller = () => privateKeyToAccount(generatePrivateKey())
    const model = () => `model-${randomUUID().slice(0, 8)}`

    it('every answer carries RateLimit-Policy and RateLimit; the request past the limit is a 429 with Retry-After', async () => {
      const client = newClient()
      for (let index = 1; index <= 4; index++) {
        const answer = await client.send('GET', '/v1/offers')
        expect(answer.status).toBe(200)
        expect(answer.headers.get('ratelimit-policy')).toBe('"read";q=4;w=60')
        expect(answer.headers.get('ratelimit')).toMatch(
          new RegExp(`^"read";r=${4 - index};t=\\d+$`),
        )
        expect(answer.headers.get('retry-after')).toBeNull()
      }
      const refused = await client.send('GET', '/v1/offers')
      expect(refused.status).toBe(429)
      const retryAfter = Number(refused.headers.get('retry-after'))
      expect(retryAfter).toBeGreaterThan(0)
      expect(retryAfter).toBeLessThanOrEqual(60)
      expect(refused.headers.get('ratelimit')).toMatch(/^"read";r=0;t=\d+$/)
      expect(refused.json).toEqual({
        error: expect.stringContaining('too many requests: the read limit is 4 per 60 s'),
        limit: 'read',
        retryAfter,
      })
      // Another class, and another client, are counted apart.
      expect((await client.intent(model())).status).toBe(201)
      expect((await newClient().send('GET', '/v1/offers')).status).toBe(200)
      // The probe is a read like the rest (each one asks the database, the facilitator, the chains).
      const probe = await newClient().send('GET', '/health')
      expect(probe.headers.get('ratelimit-policy')).toMatch(/^"read";q=\d+;w=60$/)
    })

    it('posting from one address stops at the anonymous-write limit, whatever the answers', async () => {
      const client = newClient()
      const statuses: number[] = []
      for (let index = 0; index < 8; index++)
        statuses.push((await client.offer('not an address', model())).status)
      expect(statuses).toEqual([400, 400, 400, 400, 400, 400, 429, 429])
    })

    it('a payTo holds at most SWAP_MAX_OPEN_OFFERS_PER_SELLER open offers, from any address; cancelling or expiring one frees a place', async () => {
      const payTo = seller()
      const [one, two, three] = [newClient(), newClient(), newClient()]
      const first = await one.offer(payTo.address, model())
      expect(first.status).toBe(201)
      expect((await two.offer(payTo.address, model())).status).toBe(201)
      const refused = await three.offer(payTo.address, model())
      expect(refused.status).toBe(429)
      expect(refused.json).toEqual({
        error: expect.stringContaining('too many open offers for this payTo: at most 2 at once'),
        limit: 'open-offers-per-seller',
        retryAfter: expect.any(Number),
      })
      // Nothing frees a place by itself before the first offer expires (7 days).
      const retryAfter = Number(refused.headers.get('retry-after'))
      expect(refused.json.retryAfter).toBe(retryAfter)
      expect(retryAfter).toBeGreaterThan(OFFER_TTL - 60)
      expect(retryAfter).toBeLessThanOrEqual(OFFER_TTL)
      expect(refused.headers.get('ratelimit-policy')).toBe(
        `"open-offers-per-seller";q=2;w=${OFFER_TTL}`,
      )
      expect(refused.headers.get('ratelimit')).toBe(`"open-offers-per-seller";r=0;t=${retryAfter}`)

      const id = first.json.offer.id as string
      const signature = await payTo.signMessage({ message: `Cancel swap-rail offer ${id}` })
      expect((await one.send('POST', `/v1/offers/${id}/cancel`, { signature })).status).toBe(200)
      expect((await three.offer(payTo.address, model())).status).toBe(201)
      expect((await three.offer(payTo.address, model())).status).toBe(429)

      await sql(
        `UPDATE swap_offers SET expires_at = now() - interval '1 second' WHERE pay_to = $1 AND status = 'open'`,
        [payTo.address],
      )
      expect((await three.offer(payTo.address, model())).status).toBe(201)
    })

    it('one address holds at most SWAP_MAX_OPEN_OFFERS_PER_CLIENT open offers, whatever their payTo', async () => {
      const client = newClient()
      for (let index = 0; index < 3; index++)
        expect((await client.offer(seller().address, model())).status).toBe(201)
      const refused = await client.offer(seller().address, model())
      expect(refused.status).toBe(429)
      expect(refused.json.limit).toBe('open-offers-per-client')
      // An offer used up is no longer open: its place is free.
      const sold = model()
      const other = newClient()
      expect((await other.offer(seller().address, sold)).status).toBe(201)
      expect((await newClient().intent(sold)).json.match).not.toBeNull()
      expect((await other.offer(seller().address, model())).status).toBe(201)
    })

    it('a client holds at most SWAP_MAX_OPEN_INTENTS_PER_CLIENT intents waiting or awaiting payment; a lapsed one frees a place', async () => {
      const buyer = newClient()
      const waiting = await buyer.intent(model())
      expect(waiting.json).toMatchObject({ intent: { status: 'open' }, match: null })
      const sold = model()
      expect((await newClient().offer(seller().address, sold, 5)).status).toBe(201)
      const matched = await buyer.intent(sold)
      expect(matched.json.match.status).toBe('awaiting_payment')

      const refused = await buyer.intent(sold)
      expect(refused.status).toBe(429)
      expect(refused.json).toEqual({
        error: expect.stringContaining(
          'intents waiting or awaiting payment for this client: at most 2',
        ),
        limit: 'open-intents',
        retryAfter: expect.any(Number),
      })
      // The unpaid match's payment window ends before the waiting intent expires.
      expect(refused.json.retryAfter).toBeGreaterThan(PAYMENT_WINDOW - 60)
      expect(refused.json.retryAfter).toBeLessThanOrEqual(PAYMENT_WINDOW)
      // Refused means nothing was taken: the offer still has the capacity.
      const [offer] = (await sql(`SELECT remaining_mtok FROM swap_offers WHERE model = $1`, [sold]))
        .rows as Array<{ remaining_mtok: number }>
      expect(Number(offer!.remaining_mtok)).toBe(4)
      // Another buyer is not held back.
      expect((await newClient().intent(sold)).json.match).not.toBeNull()

      await sql(`UPDATE swap_matches SET pay_by = now() - interval '1 second' WHERE id = $1`, [
        matched.json.match.id,
      ])
      expect((await buyer.intent(sold)).status).toBe(201)
      await sql(`UPDATE swap_intents SET expires_at = now() - interval '1 second' WHERE id = $1`, [
        waiting.json.intent.id,
      ])
      expect((await buyer.intent(model())).status).toBe(201)
      expect((await buyer.intent(model())).status).toBe(429)
    })

    it('match routes count per match id; made-up match ids count against the address', async () => {
      const sold = model()
      expect((await newClient().offer(seller().address, sold, 3)).status).toBe(201)
      const buyer = newClient()
      const first = (await buyer.intent(sold)).json.match.id as string
      const second = (await buyer.intent(sold)).json.match.id as string
      for (let index = 0; index < 4; index++)
        expect((await buyer.send('GET', `/v1/matches/${first}`)).status).toBe(200)
      expect((await buyer.send('GET', `/v1/matches/${first}`)).status).toBe(429)
      // The same address, another match: a bucket of its own.
      expect((await buyer.send('GET', `/v1/matches/${second}`)).status).toBe(200)
      // Its 402 counts against the challenge limit, per match.
      const challenges: number[] = []
      for (let index = 0; index < 4; index++)
        challenges.push((await buyer.send('POST', `/v1/matches/${second}/pay`)).status)
      expect(challenges).toEqual([402, 402, 402, 429])

      const guesser = newClient()
      expect((await guesser.send('GET', `/v1/matches/${randomUUID()}`)).status).toBe(404)
      expect((await guesser.send('POST', `/v1/matches/${randomUUID()}/pay`)).status).toBe(404)
      const refused = await guesser.send('GET', `/v1/matches/${randomUUID()}`)
      expect(refused.status).toBe(429)
      expect(refused.json.limit).toBe('unknown-match')
      // Even a real match id: the address spent its guesses.
      expect((await guesser.send('GET', `/v1/matches/${first}`)).status).toBe(429)
    })

    it('MCP tool calls count against their routes’ limits, and meet the same book bounds', async () => {
      const client = newClient()
      const mcp = new Client({ name: 'swap-rail-limits', version: '1.0.0' })
      await mcp.connect(
        new StreamableHTTPClientTransport(new URL(`${rail.url}/mcp`), {
          requestInit: { headers: { 'x-forwarded-for': client.address } },
        }),
      )
      try {
        // HTTP and MCP share the client's anonymous-write limit: 4 by HTTP, 2 by MCP.
        for (let index = 0; index < 4; index++)
          expect((await client.offer('not an address', model())).status).toBe(400)
        const intents: unknown[] = []
        for (let index = 0; index < 2; index++) {
          const result = await mcp.callTool({
            name: 'swap_create_intent',
            arguments: { model: model(), mtok: 1, maxPriceUsd: '1' },
          })
          intents.push(
            result.isError
              ? JSON.parse((result.content as Array<{ text: string }>)[0]!.text)
              : 'filed',
          )
        }
        expect(intents).toEqual(['filed', 'filed'])
        await expect(
          mcp.callTool({
            name: 'swap_create_intent',
            arguments: { model: model(), mtok: 1, maxPriceUsd: '1' },
          }),
        ).rejects.toThrow(/too many requests: the anonymous-write limit/)
        expect((await client.intent(model())).status).toBe(429)
      } finally {
        await mcp.close()
      }
      // The book bound answers a tool error with the route's body.
      const other = newClient()
      for (let index = 0; index < 2; index++) expect((await other.intent(model())).status).toBe(201)
      const second = new Client({ name: 'swap-rail-limits', version: '1.0.0' })
      await second.connect(
        new StreamableHTTPClientTransport(new URL(`${rail.url}/mcp`), {
          requestInit: { headers: { 'x-forwarded-for': other.address } },
        }),
      )
      try {
        const result = await second.callTool({
          name: 'swap_create_intent',
          arguments: { model: model(), mtok: 1, maxPriceUsd: '1' },
        })
        expect(result.isError).toBe(true)
        expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toMatchObject({
          limit: 'open-intents',
          retryAfter: expect.any(Number),
        })
      } finally {
        await second.close()
      }
    })

    it('/openapi.json documents the 429 and the RateLimit headers of each limited route, /health included', async () => {
      const document = (await newClient().send('GET', '/openapi.json')).json
      const post = document.paths['/v1/offers'].post
      expect(post.responses['429'].description).toMatch(/anonymous-write.*open-offers-per-seller/)
      expect(document.paths['/v1/intents'].post.responses['429'].description).toMatch(
        /anonymous-write.*open-intents/,
      )
      expect(post.responses['201'].headers).toHaveProperty('RateLimit')
      expect(document.paths['/v1/matches/{id}/pay'].post.responses['429'].description).toMatch(
        /challenge/,
      )
      expect(document.paths['/health'].get.responses['429']).toBeDefined()
      expect(document.paths['/mcp'].post.responses['429']).toBeDefined()
    })
  },
)

import { declaredRoutes, postJson, startRoundRobinProxy } from '@agents/service-kit'
import { createTestDatabase, testBackends } from '@agents/service-kit/db'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../app.ts'
import type { Venue } from '../start.ts'
import { createOwner, HEART, uniqueHandle } from '../test-helpers.ts'
import { signInToChat } from '../testing/chat-fixtures.ts'
import {
  startTestVenue,
  TEST_ADMIN_TOKEN,
  TEST_DATABASE_URL,
  VENUE_TEST_DATABASE,
} from '../testing.ts'

const METRICS_TOKEN = 'venue-metrics-token-for-tests'

// Small limits, so each test meets one in a few requests. Every test is its
// own client: an address of its own in X-Forwarded-For, believed because the
// venue is told one proxy stands in front (GEO_TRUST_FORWARDED_FOR=1).
const SMALL_LIMITS = {
  RATE_LIMIT_READ: '5/60',
  RATE_LIMIT_WRITE: '3/60',
  RATE_LIMIT_ANONYMOUS_WRITE: '3/60',
  RATE_LIMIT_OUTBOUND: '2/60',
  RATE_LIMIT_CHALLENGE: '2/60',
  RATE_LIMIT_SIGNIN: '4/60',
  GEO_TRUST_FORWARDED_FOR: '1',
  METRICS_TOKEN,
}

let clients = 0
/** A fresh client address (TEST-NET-3: no country record, so the geo gate lets it in). */
const newClient = () => `203.0.113.${++clients}`

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'request limits on $name',
  ({ open }) => {
    let venue: Venue
    let drop: () => Promise<void>
    beforeAll(async () => {
      const database = await open()
      drop = database.drop
      venue = await startTestVenue({ databaseUrl: database.url, env: SMALL_LIMITS })
    }, 60_000)
    afterAll(async () => {
      await venue?.close()
      await drop?.()
    })

    const send = (
      from: string,
      method: string,
      path: string,
      { body, headers = {} }: { body?: unknown; headers?: Record<string, string> } = {},
    ) =>
      fetch(`${venue.url}${path}`, {
        method,
        headers: {
          'x-forwarded-for': from,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
    const scrape = async () =>
      (
        await send(newClient(), 'GET', '/metrics', {
          headers: { authorization: `Bearer ${METRICS_TOKEN}` },
        })
      ).text()
    const sample = (text: string, pattern: string) =>
      Number(new RegExp(`^${pattern}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? 0)

    it('counts each request of a class up to its limit, then 429 with Retry-After and the RateLimit fields', async () => {
      const client = newClient()
      for (let remaining = 4; remaining >= 0; remaining--) {
        const answer = await send(client, 'GET', '/api/floor')
        expect(answer.status).toBe(200)
        expect(answer.headers.get('ratelimit-policy')).toBe('"read";q=5;w=60')
        expect(answer.headers.get('ratelimit')).toMatch(
          new RegExp(`^"read";r=${remaining};t=\\d+$`),
        )
        expect(answer.headers.get('retry-after')).toBeNull()
      }
      const refused = await send(client, 'GET', '/api/boards/seeking')
      expect(refused.status).toBe(429)
      const retryAfter = Number(refused.headers.get('retry-after'))
      expect(retryAfter).toBeGreaterThan(0)
      expect(retryAfter).toBeLessThanOrEqual(60)
      expect(refused.headers.get('ratelimit')).toMatch(/^"read";r=0;t=\d+$/)
      expect(await refused.json()).toEqual({
        error: expect.stringMatching(/^too many requests: the read limit is 5 per 60 s/),
        limit: 'read',
        retryAfter,
      })
      // Another class, and another client, are counted apart.
      expect((await send(client, 'POST', '/api/report', { body: {} })).status).toBe(400)
      expect((await send(newClient(), 'GET', '/api/floor')).status).toBe(200)
    })

    it('every answer of a limited route carries the fields: errors, unknown rooms, pages; probes none', async () => {
      const client = newClient()
      const answers = [
        [await send(client, 'GET', '/no-such-room'), 404, 'read'],
        [await send(client, 'GET', '/'), 200, 'read'],
        [await send(client, 'POST', '/api/report', { body: {} }), 400, 'anonymous-write'],
        [
          await send(client, 'POST', '/api/chat/attest', { body: { adult: true } }),
          401,
          'anonymous-write',
        ],
        [await send(client, 'POST', '/api/chat/session/nonce', { body: {} }), 200, 'signin'],
      ] as const
      for (const [answer, status, limit] of answers) {
        expect(answer.status).toBe(status)
        expect(answer.headers.get('ratelimit-policy')).toMatch(
          new RegExp(`^"${limit}";q=\\d+;w=60$`),
        )
        expect(answer.headers.get('ratelimit')).toMatch(new RegExp(`^"${limit}";r=\\d+;t=\\d+$`))
      }
      // Probes and scrapes count as reads: /health asks the database and the payment rails.
      for (const path of ['/health', '/metrics']) {
        const answer = await send(newClient(), 'GET', path)
        expect(answer.headers.get('ratelimit-policy')).toMatch(/^"read";q=\d+;w=60$/)
      }
    })

    it('a chat session, a venue credential and the address each have their own buckets', async () => {
      const address = newClient()
      const { cookie } = await signInToChat(venue.url)
      const { ownerId, credential } = await createOwner(venue)
      // The address spends its anonymous writes and its reads...
      for (let index = 0; index < 3; index++)
        expect((await send(address, 'POST', '/api/report', { body: {} })).status).toBe(400)
      expect((await send(address, 'POST', '/api/report', { body: {} })).status).toBe(429)
      for (let index = 0; index < 5; index++) await send(address, 'GET', '/api/floor')
      expect((await send(address, 'GET', '/api/floor')).status).toBe(429)
      // ...while the same address, signed in, reads and writes on the session's own,
      const me = await send(address, 'GET', '/api/chat/me', { headers: { cookie } })
      expect(me.status).toBe(200)
      expect(me.headers.get('ratelimit')).toMatch(/^"read";r=4;t=\d+$/)
      const drafted = await send(address, 'POST', '/api/chat/draft', {
        body: { answer: 'I restore old sailboats.' },
        headers: { cookie, origin: venue.url },
      })
      expect(drafted.status).toBe(200)
      // The session's first write was its 18+ attestation.
      expect(drafted.headers.get('ratelimit')).toMatch(/^"write";r=1;t=\d+$/)
      // ...and an owner's credential writes on its own (binding an agent to the owner).
      const registered = await send(address, 'POST', '/api/intake/agent', {
        body: { runtime: 'claude', publicKey: `0x${'ab'.repeat(20)}`, ownerId },
        headers: { authorization: `Bearer ${credential}` },
      })
      expect(registered.status).toBe(200)
      expect(registered.headers.get('ratelimit')).toMatch(/^"write";r=2;t=\d+$/)
    })

    it('made-up credentials count against the address’s signin limit, then are refused before the route', async () => {
      const address = newClient()
      for (let guess = 1; guess <= 4; guess++) {
        const answer = await send(address, 'POST', '/api/report', {
          body: { targetType: 'persona', targetId: 1, reason: 'spam' },
          headers: { authorization: `Bearer vo_1_made-up-${guess}` },
        })
        expect(answer.status).toBe(403)
        // Each made-up credential would be a fresh write bucket of its own...
        expect(answer.headers.get('ratelimit')).toMatch(/^"write";r=2;t=\d+$/)
      }
      // ...but the address has spent its signin limit on refusals.
      const refused = await send(address, 'POST', '/api/report', {
        body: {},
        headers: { authorization: 'Bearer vo_1_made-up-5' },
      })
      expect(refused.status).toBe(429)
      expect(await refused.json()).toMatchObject({ limit: 'signin' })
      // A route that checks no credential ignores one: it buys no bucket there.
      const reader = newClient()
      for (let index = 1; index <= 5; index++)
        await send(reader, 'GET', '/api/floor', {
          headers: { authorization: `Bearer made-up-${index}` },
        })
      const read = await send(reader, 'GET', '/api/floor', {
        headers: { authorization: 'Bearer made-up-6' },
      })
      expect(read.status).toBe(429)
      expect(await read.json()).toMatchObject({ limit: 'read' })
    })

    it('MCP messages count as their routes: the tools are reads, and share the read limit with the GETs', async () => {
      const address = newClient()
      const mcp = new Client({ name: 'venue-limits', version: '1.0.0' })
      await mcp.connect(
        new StreamableHTTPClientTransport(new URL(`${venue.url}/mcp`), {
          requestInit: { headers: { 'x-forwarded-for': address } },
        }),
      )
      // initialize and notifications/initialized took two reads; a GET takes a third.
      expect((await send(address, 'GET', '/api/floor')).headers.get('ratelimit')).toMatch(
        /^"read";r=2;/,
      )
      expect((await mcp.callTool({ name: 'get_stats', arguments: {} })).isError).toBeFalsy()
      expect((await mcp.callTool({ name: 'how_to_join', arguments: {} })).isError).toBeFalsy()
      await expect(mcp.callTool({ name: 'get_skill', arguments: {} })).rejects.toThrow(
        /too many requests: the read limit/,
      )
      await mcp.close()
      expect((await send(address, 'GET', '/api/floor')).status).toBe(429)
    })

    it('the outbound and challenge routes have their own, smaller limits', async () => {
      const address = newClient()
      const persona = () =>
        send(address, 'POST', '/api/personas', {
          body: { handle: uniqueHandle('lim'), model: 'claude', persona_age: '18+', heart: HEART },
        })
      expect((await persona()).status).toBe(200)
      expect((await persona()).status).toBe(200)
      const refused = await persona()
      expect(refused.status).toBe(429)
      expect(refused.headers.get('ratelimit-policy')).toBe('"outbound";q=2;w=60')
      const heartFile = () => send(address, 'POST', '/api/intake/heart-file', { body: {} })
      expect((await heartFile()).headers.get('ratelimit-policy')).toBe('"challenge";q=2;w=60')
      await heartFile()
      expect((await heartFile()).status).toBe(429)
    })

    it('/metrics: 401 without the operator’s token; the counts and gauges move with the requests', async () => {
      expect((await send(newClient(), 'GET', '/metrics')).status).toBe(401)
      const wrong = await send(newClient(), 'GET', '/metrics', {
        headers: { authorization: 'Bearer not-the-token-at-all' },
      })
      expect(wrong.status).toBe(401)

      const before = await scrape()
      const floorReads =
        'http_requests_total\\{[^}]*method="GET",route="/api/floor",status="200"[^}]*\\}'
      const owned = 'venue_seats_used\\{[^}]*owner="owned"[^}]*\\}'
      const unowned = 'venue_seats_used\\{[^}]*owner="unowned"[^}]*\\}'
      const limitedReads = 'rate_limited_total\\{[^}]*limit="read"[^}]*\\}'
      const count = (text: string, pattern: string) =>
        Number(new RegExp(`^${pattern} (\\S+)$`, 'm').exec(text)?.[1] ?? 0)

      const address = newClient()
      for (let index = 0; index < 6; index++) await send(address, 'GET', '/api/floor')
      const { ownerId, credential } = await createOwner(venue)
      const ownedPersona = await send(newClient(), 'POST', '/api/personas', {
        body: {
          handle: uniqueHandle('own'),
          model: 'claude',
          persona_age: '18+',
          heart: HEART,
          ownerId,
        },
        headers: { authorization: `Bearer ${credential}` },
      })
      expect((await ownedPersona.json()).admitted).toBe(true)
      const anonymous = await send(newClient(), 'POST', '/api/personas', {
        body: { handle: uniqueHandle('anon'), model: 'claude', persona_age: '18+', heart: HEART },
      })
      expect((await anonymous.json()).admitted).toBe(true)

      const beats = 'venue_beat_duration_seconds_count\\{[^}]*outcome="ok"[^}]*\\}'
      const beat = await send(newClient(), 'POST', '/admin/actions/beat', {
        body: {},
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      })
      expect(beat.status).toBe(200)

      const after = await scrape()
      expect(count(after, beats)).toBe(count(before, beats) + 1)
      expect(count(after, floorReads)).toBe(count(before, floorReads) + 5)
      expect(count(after, limitedReads)).toBe(count(before, limitedReads) + 1)
      expect(count(after, owned)).toBe(count(before, owned) + 1)
      expect(count(after, unowned)).toBe(count(before, unowned) + 1)
      expect(sample(after, 'venue_seat_cap')).toBe(500)
      expect(after).toMatch(/^venue_floor_streams\{[^}]*of="streams"[^}]*\} 0$/m)
      expect(after).toMatch(/^payment_ledger_rows\{[^}]*state="settled"[^}]*\} 0$/m)
      expect(sample(after, 'payment_ledger_oldest_unresolved_seconds')).toBe(0)
      expect(after).toMatch(/^payment_reconciler_runs_total\{[^}]*outcome="ran"[^}]*\} [1-9]/m)
    })

    it('/metrics answers 403 when no METRICS_TOKEN is configured', async () => {
      const app = buildApp(venue.deps, { gate: async (_c, next) => next() })
      const answer = await app.request('/metrics', {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      })
      expect(answer.status).toBe(403)
    })

    it('/openapi.json: every operation declares its limit with its route, and each limited one documents its 429', async () => {
      const document = (await (await send(newClient(), 'GET', '/openapi.json')).json()) as {
        paths: Record<
          string,
          Record<string, { responses: Record<string, { description?: string }> }>
        >
      }
      const declared = new Map(declaredRoutes(venue.app).entries())
      const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, operation]) => ({
          key: `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`,
          operation,
        })),
      )
      expect(operations.map(({ key }) => key).sort()).toEqual([...declared.keys()].sort())
      // Declaring none counts as `unlisted` (GET read, else write): the kit's own
      // documents and probes.
      expect(
        operations
          .filter(({ key }) => declared.get(key)!.limit === undefined)
          .map(({ key }) => key),
      ).toEqual(['GET /health', 'GET /openapi.json', 'GET /metrics'])
      for (const { key, operation } of operations) {
        const limited = declared.get(key)!.limit !== false || key === 'POST /mcp'
        expect(operation.responses['429'] !== undefined, key).toBe(limited)
      }
      expect(document.paths['/api/report']!.post!.responses['429']!.description).toMatch(
        /`write` limit \(3 per 60 s by default\) with a credential, the `anonymous-write` limit \(3 per 60 s by default\) without one/,
      )
    })

    it('a route counts only the credentials its security names: the console sign-out names none', async () => {
      // Ending a session is answered alike with any cookie: a made-up one must not buy a bucket.
      const address = newClient()
      const statuses: Array<[number, string | undefined]> = []
      for (let index = 1; index <= 4; index++) {
        const answer = await send(address, 'POST', '/api/operator/session/end', {
          body: {},
          headers: { cookie: `venue_operator=made-up-${index}`, origin: venue.url },
        })
        statuses.push([answer.status, answer.headers.get('ratelimit')?.split(';t=')[0]])
      }
      expect(statuses).toEqual([
        [200, '"anonymous-write";r=2'],
        [200, '"anonymous-write";r=1'],
        [200, '"anonymous-write";r=0'],
        [429, '"anonymous-write";r=0'],
      ])
    })
  },
)

describe.skipIf(!TEST_DATABASE_URL)('request limits across replicas on one PostgreSQL', () => {
  let replicas: Venue[] = []
  let proxy: Awaited<ReturnType<typeof startRoundRobinProxy>>
  let drop: () => Promise<void>
  beforeAll(async () => {
    const database = await createTestDatabase(TEST_DATABASE_URL!, VENUE_TEST_DATABASE)
    drop = database.drop
    // One after the other: both would migrate the fresh database at once.
    replicas = [
      await startTestVenue({ databaseUrl: database.url, env: SMALL_LIMITS }),
      await startTestVenue({ databaseUrl: database.url, env: SMALL_LIMITS }),
    ]
    proxy = await startRoundRobinProxy(replicas.map((replica) => replica.url))
  }, 60_000)
  afterAll(async () => {
    await proxy?.close()
    await Promise.all(replicas.map((replica) => replica.close()))
    await drop?.()
  })

  it('two replicas behind a load balancer allow what one allows', async () => {
    const answers = []
    for (let index = 0; index < 4; index++)
      answers.push(await postJson(`${proxy.url}/api/report`, {}))
    expect(answers.map((answer) => answer.status)).toEqual([400, 400, 400, 429])
    expect(answers.map((answer) => answer.headers.get('ratelimit')?.split(';t=')[0])).toEqual([
      '"anonymous-write";r=2',
      '"anonymous-write";r=1',
      '"anonymous-write";r=0',
      '"anonymous-write";r=0',
    ])
  })
})

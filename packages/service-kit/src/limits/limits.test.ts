import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import pg from 'pg'
import { afterAll, describe, expect, test } from 'vitest'
import { z } from 'zod'
import { createApp } from '../create-app.ts'
import { createTestDatabase } from '../db/test-database.ts'
import { createLogger } from '../logger.ts'
import { defineMcpTool, mountMcp } from '../mcp.ts'
import { createMetrics } from '../metrics/metrics.ts'
import { document, json } from '../openapi.ts'
import type { RunningServer } from '../serve.ts'
import { startTestServer } from '../testing.ts'
import { createOutboundBudget } from './budget.ts'
import { credentialKey } from './limit-requests.ts'
import { createLimits, type LimitStore } from './limits.ts'

const logger = createLogger({ name: 't', level: 'silent' })
const servers: RunningServer[] = []
const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()))
  for (const cleanup of cleanups) await cleanup()
})

/** A small service: a read, a write, a route refusing made-up credentials, a tool, metrics. */
const startApp = async (store: LimitStore) => {
  const limits = await createLimits({
    service: 'limits-test',
    store,
    policies: {
      read: { points: 5, windowSeconds: 60 },
      write: { points: 2, windowSeconds: 60 },
      signin: { points: 2, windowSeconds: 60 },
    },
  })
  const metrics = createMetrics({ service: 'limits-test', processMetrics: false })
  const app = createApp({
    name: 'limits-test',
    version: '1',
    logger,
    metrics,
    metricsToken: 'metrics-secret',
    limits: {
      limits,
      // The kit's own routes (/health, /metrics, /openapi.json) declare no limit.
      unlisted: { read: false },
      credentials: {
        bearer: (c) => {
          const token = c.req.header('authorization')
          return token ? credentialKey('bearer', token) : undefined
        },
      },
      credentialFailures: 'signin',
    },
  })
  const thing = json(z.object({ made: z.boolean() }), 'a thing')
  app.get(
    document(app, { method: 'get', path: '/things', limit: 'read', responses: { 200: thing } }),
    (c) => c.json({ things: [] }),
  )
  app.post(
    document(app, { method: 'post', path: '/things', limit: 'write', responses: { 201: thing } }),
    (c) => c.json({ made: true }, 201),
  )
  app.get(
    document(app, {
      method: 'get',
      path: '/mine',
      security: [{ bearer: [] }],
      limit: 'read',
      responses: { 200: thing },
    }),
    (c) =>
      c.req.header('authorization') === 'Bearer good'
        ? c.json({ mine: [] })
        : c.json({ error: 'unknown credential' }, 401),
  )
  mountMcp(app, {
    name: 'limits-test',
    version: '1',
    limits: { other: 'read' },
    tools: [
      defineMcpTool({
        name: 'make_thing',
        title: 'Make a thing',
        description: 'as POST /things',
        limit: 'write',
        inputSchema: z.object({}),
        handler: () => ({ made: true }),
      }),
    ],
  })
  const server = await startTestServer(app)
  servers.push(server)
  return server
}

const get = (server: RunningServer, path: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, { headers })

describe('request limits in memory (one replica)', async () => {
  const server = await startApp({ kind: 'memory' })

  test('each answer carries the IETF RateLimit headers; the request past the limit is a 429 with Retry-After', async () => {
    for (let index = 1; index <= 2; index++) {
      const answer = await fetch(`${server.url}/things`, { method: 'POST' })
      expect(answer.status).toBe(201)
      expect(answer.headers.get('ratelimit-policy')).toBe('"write";q=2;w=60')
      expect(answer.headers.get('ratelimit')).toMatch(new RegExp(`^"write";r=${2 - index};t=\\d+$`))
    }
    const refused = await fetch(`${server.url}/things`, { method: 'POST' })
    expect(refused.status).toBe(429)
    const retryAfter = Number(refused.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(refused.headers.get('ratelimit')).toMatch(/^"write";r=0;t=\d+$/)
    expect(await refused.json()).toMatchObject({
      error: expect.stringContaining('too many requests'),
      limit: 'write',
      retryAfter,
    })
    // Another class is counted apart.
    expect((await get(server, '/things')).status).toBe(200)
  })

  test('made-up credentials count against the address and are then refused before the route', async () => {
    expect((await get(server, '/mine', { authorization: 'Bearer guess-1' })).status).toBe(401)
    expect((await get(server, '/mine', { authorization: 'Bearer guess-2' })).status).toBe(401)
    const refused = await get(server, '/mine', { authorization: 'Bearer guess-3' })
    expect(refused.status).toBe(429)
    expect((await refused.json()).limit).toBe('signin')
  })

  test('MCP tool calls count against their route class', async () => {
    const mcp = new McpClient({ name: 'limits-test-client', version: '1' })
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)))
    // The write class was spent by the first test: the tool is refused too.
    await expect(mcp.callTool({ name: 'make_thing', arguments: {} })).rejects.toThrow(
      /too many requests: the write limit/,
    )
    await mcp.close()
  })

  test('/metrics: refused without the token; with it, counts that moved with the requests', async () => {
    expect((await get(server, '/metrics')).status).toBe(401)
    expect((await get(server, '/metrics', { authorization: 'Bearer wrong' })).status).toBe(401)
    const scrape = async () =>
      (await get(server, '/metrics', { authorization: 'Bearer metrics-secret' })).text()
    const before = await scrape()
    expect(before).toMatch(/rate_limited_total\{[^}]*limit="write"[^}]*\} [1-9]/)
    const count = (text: string) =>
      Number(
        /http_requests_total\{[^}]*method="GET",route="\/things",status="200"[^}]*\} (\d+)/.exec(
          text,
        )?.[1] ?? 0,
      )
    await get(server, '/things')
    expect(count(await scrape())).toBe(count(before) + 1)
  })
})

describe('limits declared with the routes', async () => {
  const server = await startApp({ kind: 'memory' })

  test('a route counts only the credentials its security names', async () => {
    // GET /things names none: a bearer there counts for the address (a made-up one buys no bucket).
    const reads: Array<string | undefined> = []
    for (const token of ['one', 'two']) {
      const answer = await get(server, '/things', { authorization: `Bearer ${token}` })
      reads.push(answer.headers.get('ratelimit')?.split(';t=')[0])
    }
    expect(reads).toEqual(['"read";r=4', '"read";r=3'])
    // GET /mine names `bearer`: the credential has its own bucket.
    const mine = await get(server, '/mine', { authorization: 'Bearer good' })
    expect(mine.status).toBe(200)
    expect(mine.headers.get('ratelimit')).toMatch(/^"read";r=4;t=\d+$/)
  })

  test('/openapi.json documents the 429 of each declared limit, and not the declaration', async () => {
    const document = await (await get(server, '/openapi.json')).json()
    const things = document.paths['/things']
    expect(things.post.responses['429'].description).toBe(
      'over the `write` limit (2 per 60 s by default) for this client (see the README)',
    )
    expect(things.get.responses['200'].headers).toHaveProperty('RateLimit')
    expect(things.get).not.toHaveProperty('limit')
    // Declared `unlisted: { read: false }`: the kit's own routes are not limited here.
    expect(document.paths['/health'].get.responses['429']).toBeUndefined()
    expect((await get(server, '/health')).headers.get('ratelimit')).toBeNull()
  })
})

test('a budget in memory: a named payer counts its own budget too; local work only its own', async () => {
  const budget = await createOutboundBudget({
    service: 'budget-test',
    store: { kind: 'memory' },
    policies: {
      perClient: { points: 2, windowSeconds: 60 },
      global: { points: 10, windowSeconds: 60 },
      paid: { points: 10, windowSeconds: 60 },
    },
  })
  await budget.spend({ client: 'owner:1', paid: true })
  await budget.spend({ client: 'owner:1', global: false })
  await expect(budget.spend({ client: 'owner:1', paid: true })).rejects.toMatchObject({
    status: 503,
    extras: { budget: 'outbound' },
  })
  await budget.spend({ paid: true }, 3)
  expect(await budget.state()).toEqual([
    expect.objectContaining({ name: 'outbound-global', remaining: 10 }),
    expect.objectContaining({ name: 'outbound-paid', remaining: 6 }),
  ])
})

describe.skipIf(!process.env.TEST_DATABASE_URL)('request limits on PostgreSQL', async () => {
  // vitest still runs a skipped suite's body to collect its tests.
  if (!process.env.TEST_DATABASE_URL) return
  const database = await createTestDatabase(process.env.TEST_DATABASE_URL)
  const pool = new pg.Pool({ connectionString: database.url, max: 4 })
  cleanups.push(async () => {
    await pool.end()
    await database.drop()
  })
  const store: LimitStore = { kind: 'postgres', pool }
  const [one, two] = [await startApp(store), await startApp(store)]

  test('replicas starting together on an empty database all create their limits', async () => {
    // Each its own pool, as each replica is its own process: they race to create the table.
    const fresh = await createTestDatabase(process.env.TEST_DATABASE_URL!)
    const pools = Array.from(
      { length: 6 },
      () => new pg.Pool({ connectionString: fresh.url, max: 1 }),
    )
    try {
      const policies = { read: { points: 5, windowSeconds: 60 } }
      const started = await Promise.allSettled(
        pools.map((replica) =>
          createLimits({
            service: 'race-test',
            store: { kind: 'postgres', pool: replica },
            policies,
          }),
        ),
      )
      expect(started.filter((result) => result.status === 'rejected')).toEqual([])
    } finally {
      await Promise.all(pools.map((replica) => replica.end()))
      await fresh.drop()
    }
  })

  test('two replicas on one database allow what one allows', async () => {
    const statuses: number[] = []
    for (const server of [one, two, one, two])
      statuses.push((await fetch(`${server.url}/things`, { method: 'POST' })).status)
    expect(statuses).toEqual([201, 201, 429, 429])
  })

  test('leases: a client coming back costs few queries, and replicas never allow more than the limit', async () => {
    const policies = { read: { points: 200, windowSeconds: 60 } }
    const [a, b] = [
      await createLimits({ service: 'lease-test', store, policies }),
      await createLimits({ service: 'lease-test', store, policies }),
    ]
    let allowed = 0
    for (let index = 0; index < 300; index++) {
      const decision = await (index % 3 === 0 ? b : a).take('read', 'ip:lease')
      if (decision.allowed) allowed++
    }
    // One replica alone reports what is left exactly, leases or not.
    for (let index = 1; index <= 11; index++) {
      const decision = await a.take('read', 'ip:alone')
      expect(decision.remaining).toBe(200 - index)
    }
    // Each replica may strand at most its last lease (200 / 20 units).
    expect(allowed).toBeLessThanOrEqual(200)
    expect(allowed).toBeGreaterThanOrEqual(200 - 2 * 10)
    const { rows } = await pool.query('SELECT points FROM rate_limits WHERE key = $1', [
      'lease-test:read:ip:lease',
    ])
    expect(rows[0].points).toBeGreaterThanOrEqual(200)
    // Refused from memory once the table said no: the count stops moving.
    const before = rows[0].points
    await a.take('read', 'ip:lease')
    const after = await pool.query('SELECT points FROM rate_limits WHERE key = $1', [
      'lease-test:read:ip:lease',
    ])
    expect(after.rows[0].points).toBe(before)
  })

  test('leases: bursts of concurrent requests from one client are all counted, none twice', async () => {
    const policies = { write: { points: 1000, windowSeconds: 60 } }
    const [a, b] = [
      await createLimits({ service: 'burst-test', store, policies }),
      await createLimits({ service: 'burst-test', store, policies }),
    ]
    let allowed = 0
    for (const burst of [100, 120, 120]) {
      const decisions = await Promise.all(
        Array.from({ length: burst }, (_, index) => (index % 2 ? a : b).take('write', 'ip:burst')),
      )
      allowed += decisions.filter((decision) => decision.allowed).length
    }
    expect(allowed).toBe(340)
    const { rows } = await pool.query('SELECT points FROM rate_limits WHERE key = $1', [
      'burst-test:write:ip:burst',
    ])
    // What was handed out, plus at most one unspent lease per replica (1000 / 20 units).
    expect(rows[0].points).toBeGreaterThanOrEqual(340)
    expect(rows[0].points).toBeLessThanOrEqual(340 + 2 * 50)
  })

  test('the outbound budget is shared too; payers draw on their own', async () => {
    const policies = {
      perClient: { points: 2, windowSeconds: 60 },
      global: { points: 3, windowSeconds: 60 },
      paid: { points: 1, windowSeconds: 60 },
    }
    const [a, b] = [
      await createOutboundBudget({ service: 'limits-test', store, policies }),
      await createOutboundBudget({ service: 'limits-test', store, policies }),
    ]
    await a.spend({ client: 'ip:1' })
    await b.spend({ client: 'ip:1' })
    await expect(a.spend({ client: 'ip:1' })).rejects.toMatchObject({ status: 503 })
    await b.spend({ client: 'ip:2' })
    await expect(a.spend({ client: 'ip:3' })).rejects.toMatchObject({
      status: 503,
      extras: { budget: 'outbound-global' },
    })
    await a.spend({ paid: true })
    expect(await b.state()).toEqual([
      expect.objectContaining({ name: 'outbound-global', points: 3, remaining: 0 }),
      expect.objectContaining({ name: 'outbound-paid', points: 1, remaining: 0 }),
    ])
  })
})

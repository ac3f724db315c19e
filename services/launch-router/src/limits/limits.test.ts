import { type RunningServer, startRoundRobinProxy } from '@agents/service-kit'
import { createTestDatabase } from '@agents/service-kit/db'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { CREATOR, OPERATIONS, startTestRouter, useTestRouter } from '../testing.ts'

const METRICS_TOKEN = 'metrics-token-for-tests'

// Small limits, so each test reaches them in a few requests; every test is
// its own client (an address in X-Forwarded-For, believed with
// TRUST_FORWARDED_FOR=1), so one router serves the whole file.
const router = useTestRouter({
  RATE_LIMIT_READ: '6/60',
  // Worker-milliseconds: any Flap salt (about 65,000 candidates) costs more.
  RATE_LIMIT_MINING: '5/600',
  TRUST_FORWARDED_FOR: '1',
  METRICS_TOKEN,
})
let lastClient = 0
const newClient = () => `203.0.113.${++lastClient}`

const send = (
  server: RunningServer | { url: string },
  client: string | undefined,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) =>
  fetch(`${server.url}${path}`, {
    ...(body === undefined
      ? {}
      : { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body) }),
    headers: {
      'content-type': 'application/json',
      ...(client ? { 'x-forwarded-for': client } : {}),
      ...headers,
    },
  })
const operation = (client: string | undefined, name: string, body: unknown) =>
  send(router.server, client, `/api/v1/${name}`, body)

/** A flap intent: its payload needs a mined salt (a 4-hex address suffix). */
const flap = (name: string) => ({
  intent: { name, symbol: 'SALT', chainId: 56, pad: 'flap', creator: CREATOR },
})

const connectMcp = async (server: RunningServer, client: string) => {
  const mcp = new Client({ name: 'launch-router-limits-test', version: '1.0.0' })
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { 'x-forwarded-for': client } },
    }),
  )
  return mcp
}

const expectRefused = async (answer: Response, limit: string, policy: string) => {
  expect(answer.status).toBe(429)
  const retryAfter = Number(answer.headers.get('retry-after'))
  expect(retryAfter).toBeGreaterThan(0)
  expect(answer.headers.get('ratelimit-policy')).toBe(policy)
  expect(answer.headers.get('ratelimit')).toBe(`"${limit}";r=0;t=${retryAfter}`)
  expect(await answer.json()).toEqual({
    error: expect.stringContaining(`too many requests: the ${limit} limit`),
    limit,
    retryAfter,
  })
}

describe('request limits per client', () => {
  test('every answer carries the RateLimit headers; the request past the read limit is a 429, not before', async () => {
    const client = newClient()
    const answers = [
      await operation(client, 'list_pads', {}),
      await operation(client, 'get_capabilities', { pad: 'nope' }),
      await operation(client, 'draft_intent', { intent: 'not an object' }),
      await send(router.server, client, '/llms.txt'),
      await send(router.server, client, '/openapi.json'),
      await operation(client, 'launch_now', {}),
    ]
    expect(answers.map((answer) => answer.status)).toEqual([200, 422, 400, 200, 200, 404])
    answers.forEach((answer, index) => {
      expect(answer.headers.get('ratelimit-policy')).toBe('"read";q=6;w=60')
      expect(answer.headers.get('ratelimit')).toMatch(new RegExp(`^"read";r=${5 - index};t=\\d+$`))
    })
    await expectRefused(await operation(client, 'list_pads', {}), 'read', '"read";q=6;w=60')
    // The probe is a read too (a flood of it is refused like any other); another client is not affected.
    await expectRefused(await send(router.server, client, '/health'), 'read', '"read";q=6;w=60')
    const health = await send(router.server, newClient(), '/health')
    expect(health.status).toBe(200)
    expect(health.headers.get('ratelimit-policy')).toBe('"read";q=6;w=60')
    expect((await operation(newClient(), 'list_pads', {})).status).toBe(200)
  })

  test('MCP: every message counts as read, tool calls as their routes; past the limit the request is a 429', async () => {
    const client = newClient()
    const mcp = await connectMcp(router.server, client) // initialize + initialized: 2
    await mcp.listTools() // 3
    for (let call = 4; call <= 6; call++)
      expect((await mcp.callTool({ name: 'list_pads', arguments: {} })).isError).toBeFalsy()
    await expect(mcp.callTool({ name: 'list_pads', arguments: {} })).rejects.toThrow(
      /too many requests: the read limit/,
    )
    // One limit for both doors.
    await expectRefused(await operation(client, 'list_pads', {}), 'read', '"read";q=6;w=60')
    await mcp.close()
  })

  test('mining: a remembered salt is served when the budget is spent; a new salt is a 429 with the budget’s headers', async () => {
    const client = newClient()
    const first = await operation(client, 'get_sign_payload', flap('Budget Spent'))
    expect(first.status).toBe(200)
    const payload = await first.text()
    // The first search spent the whole budget (5 ms); the same intent costs nothing.
    for (const name of ['get_sign_payload', 'simulate_launch']) {
      const again = await operation(client, name, flap('Budget Spent'))
      expect(again.status).toBe(200)
      expect(await again.text()).toBe(payload)
    }
    const refused = await operation(client, 'get_sign_payload', flap('One More'))
    await expectRefused(refused, 'mining', '"mining";q=5;w=600')
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(60)
    // Pads that mine nothing are served.
    const unmined = await operation(client, 'get_sign_payload', {
      intent: { name: 'Plain', symbol: 'PLN', chainId: 8453, pad: 'clanker-v4', creator: CREATOR },
    })
    expect(unmined.status).toBe(200)
  })

  test('mining: new salts asked for side by side are admitted one after another, so a burst cannot overdraw', async () => {
    const client = newClient()
    const answers = await Promise.all(
      ['Burst One', 'Burst Two', 'Burst Three'].map((name) =>
        operation(client, 'get_sign_payload', flap(name)),
      ),
    )
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 429, 429])
  })

  test('mining through MCP: the same budget; a new salt past it is a tool error naming the limit', async () => {
    const mcp = await connectMcp(router.server, newClient())
    const call = (name: string) => mcp.callTool({ name: 'get_sign_payload', arguments: flap(name) })
    const first = await call('Mcp Budget')
    expect(first.isError).toBeFalsy()
    expect(await call('Mcp Budget')).toEqual(first)
    const refused = await call('Mcp One More')
    expect(refused.isError).toBe(true)
    const body = JSON.parse((refused.content as Array<{ text: string }>)[0]!.text)
    expect(body).toEqual({
      error: expect.stringContaining('too many requests: the mining limit is 5 per 600 s'),
      limit: 'mining',
      retryAfter: expect.any(Number),
    })
    expect(body.retryAfter).toBeGreaterThan(0)
    await mcp.close()
  })

  test('/openapi.json documents the 429 and the RateLimit headers of every operation', async () => {
    const document = await (await send(router.server, newClient(), '/openapi.json')).json()
    const limited = [...OPERATIONS.map((name) => `/api/v1/${name}`), '/llms.txt', '/openapi.json']
    for (const path of limited) {
      const [operation] = Object.values(document.paths[path]) as Array<{
        responses: Record<string, { description: string; headers?: object }>
      }>
      expect(operation!.responses['429']?.headers, path).toHaveProperty('Retry-After')
      expect(operation!.responses['200']?.headers, path).toHaveProperty('RateLimit')
    }
    for (const name of ['get_sign_payload', 'simulate_launch']) {
      const { description, responses } = document.paths[`/api/v1/${name}`].post
      expect(description).toMatch(/`mining` budget/)
      expect(responses['429'].description).toMatch(/`read` limit .*; or .*`mining` budget/)
    }
    expect(document.paths['/mcp'].post.responses['429']).toBeDefined()
    expect(document.paths['/health'].get.responses['429']).toBeDefined()
    expect(document.paths['/metrics'].get.responses['429']).toBeDefined()
  })
})

describe('metrics', () => {
  const scrape = async (token?: string) =>
    send(router.server, undefined, '/metrics', undefined, {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    })
  const figure = (text: string, pattern: string) =>
    Number(new RegExp(`^${pattern}(?:\\{[^}]*\\})? ([\\d.e+-]+)$`, 'm').exec(text)?.[1] ?? 0)

  test('/metrics is refused without the token; with it, the salt figures move with the requests', async () => {
    expect((await scrape()).status).toBe(401)
    expect((await scrape('not-the-metrics-token')).status).toBe(401)
    const before = await (await scrape(METRICS_TOKEN)).text()
    const client = newClient()
    expect((await operation(client, 'get_sign_payload', flap('Metrics'))).status).toBe(200)
    expect((await operation(client, 'get_sign_payload', flap('Metrics'))).status).toBe(200)
    expect((await operation(client, 'get_sign_payload', flap('Metrics Two'))).status).toBe(429)
    const after = await (await scrape(METRICS_TOKEN)).text()
    const moved = (pattern: string) => figure(after, pattern) - figure(before, pattern)
    expect(moved('salt_requests_total\\{outcome="mined"[^}]*\\}')).toBe(1)
    expect(moved('salt_requests_total\\{outcome="cached"[^}]*\\}')).toBe(1)
    expect(moved('salt_mining_seconds_total')).toBeGreaterThan(0)
    expect(moved('rate_limited_total\\{limit="mining"[^}]*\\}')).toBe(1)
    expect(
      moved(
        'http_requests_total\\{method="POST",route="/api/v1/get_sign_payload",status="200"[^}]*\\}',
      ),
    ).toBe(2)
  })

  test('without METRICS_TOKEN /metrics answers 403; the default limits apply', async () => {
    // Empty means unset: the production defaults, not the test helper's.
    const plain = await startTestRouter({
      MINER_THREADS: '1',
      RATE_LIMIT_READ: '',
      RATE_LIMIT_MINING: '',
    })
    try {
      expect((await send(plain, undefined, '/metrics')).status).toBe(403)
      const answer = await send(plain, undefined, '/api/v1/list_pads', {})
      expect(answer.headers.get('ratelimit-policy')).toBe('"read";q=1200;w=60')
      const payload = await send(plain, undefined, '/api/v1/get_sign_payload', flap('Defaults'))
      // The default mining budget (4,000 worker-ms per 10 minutes) covers a first salt.
      expect(payload.status).toBe(200)
    } finally {
      await plain.close()
    }
  })
})

describe.skipIf(!process.env.TEST_DATABASE_URL)('two replicas on RATE_LIMIT_DATABASE_URL', () => {
  const servers: RunningServer[] = []
  let proxy: Awaited<ReturnType<typeof startRoundRobinProxy>>
  let drop: () => Promise<void>
  beforeAll(async () => {
    const database = await createTestDatabase(process.env.TEST_DATABASE_URL!)
    drop = database.drop
    const env = {
      RATE_LIMIT_DATABASE_URL: database.url,
      TRUST_FORWARDED_FOR: '1',
      RATE_LIMIT_READ: '4/60',
      RATE_LIMIT_MINING: '1/600',
      MINER_THREADS: '1',
    }
    servers.push(await startTestRouter(env), await startTestRouter(env))
    proxy = await startRoundRobinProxy(servers.map((server) => server.url))
  })
  afterAll(async () => {
    await proxy?.close()
    await Promise.all(servers.map((server) => server.close()))
    await drop?.()
  })

  test('allow what one allows: the read limit and the mining budget are shared', async () => {
    const call = (name: string, body: unknown) => send(proxy, undefined, `/api/v1/${name}`, body)
    // Replica one mines (the budget is spent), replica two refuses the next new salt.
    expect((await call('get_sign_payload', flap('Replica One'))).status).toBe(200)
    await expectRefused(
      await call('get_sign_payload', flap('Replica Two')),
      'mining',
      '"mining";q=1;w=600',
    )
    const statuses: number[] = []
    for (let index = 0; index < 4; index++) statuses.push((await call('list_pads', {})).status)
    expect(statuses).toEqual([200, 200, 429, 429])
  })
})

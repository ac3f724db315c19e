import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { createSafetyCheck } from './create-safety-check.ts'
import { ModerationOptions, ModerationUnavailableError, moderateText } from './moderate-text.ts'

// A fake OpenAI-compatible moderation server on a real port: each test picks how it
// answers, and every request it receives is recorded.
type Mode =
  | { kind: 'result'; flagged: boolean; categories?: string[] }
  | { kind: 'status'; status: number }
  | { kind: 'garbage' }
  | { kind: 'wrong-shape' }
  | { kind: 'slow'; ms: number }
  | { kind: 'stalled-body' }

const ALL_CATEGORIES = [
  'harassment',
  'harassment/threatening',
  'hate',
  'hate/threatening',
  'illicit',
  'self-harm',
  'self-harm/instructions',
  'sexual',
  'sexual/minors',
  'violence',
  'violence/graphic',
]
const API_KEY = 'sk-test-moderation'

let mode: Mode
let received: { path: string; headers: IncomingMessage['headers']; body: unknown }[] = []
let baseUrl: string
const sockets = new Set<Socket>()
const timers = new Set<NodeJS.Timeout>()

const writeResult = (response: ServerResponse, flagged: boolean, flaggedCategories: string[]) => {
  const isFlagged = (category: string) => flaggedCategories.includes(category)
  response.writeHead(200, { 'content-type': 'application/json' })
  response.end(
    JSON.stringify({
      id: 'modr-1',
      model: 'omni-moderation-latest',
      results: [
        {
          flagged,
          categories: Object.fromEntries(ALL_CATEGORIES.map((c) => [c, isFlagged(c)])),
          category_scores: Object.fromEntries(
            ALL_CATEGORIES.map((c) => [c, isFlagged(c) ? 0.9 : 0.01]),
          ),
        },
      ],
    }),
  )
}

const answer = (response: ServerResponse) => {
  switch (mode.kind) {
    case 'result':
      writeResult(response, mode.flagged, mode.categories ?? [])
      return
    case 'status':
      response.writeHead(mode.status, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ error: { message: 'nope' } }))
      return
    case 'garbage':
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end('{"results": [ not json')
      return
    case 'wrong-shape':
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ results: [] }))
      return
    case 'slow': {
      const timer = setTimeout(() => {
        timers.delete(timer)
        if (!response.destroyed) writeResult(response, false, [])
      }, mode.ms)
      timers.add(timer)
      return
    }
    case 'stalled-body':
      response.writeHead(200, { 'content-type': 'application/json' })
      response.write('{"results": [')
      return
  }
}

const server = createServer((request, response) => {
  let raw = ''
  request.on('data', (chunk) => {
    raw += chunk
  })
  request.on('end', () => {
    received.push({ path: request.url ?? '', headers: request.headers, body: JSON.parse(raw) })
    answer(response)
  })
})
server.on('connection', (socket) => {
  sockets.add(socket)
  socket.on('close', () => sockets.delete(socket))
})

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
})

afterAll(async () => {
  for (const timer of timers) clearTimeout(timer)
  for (const socket of sockets) socket.destroy()
  await new Promise((resolve) => server.close(resolve))
})

beforeEach(() => {
  received = []
  mode = { kind: 'result', flagged: false }
})

const safetyWith = (options: Partial<ModerationOptions> = {}) =>
  createSafetyCheck({ moderation: { url: baseUrl, apiKey: API_KEY, timeoutMs: 1_000, ...options } })

const UNAVAILABLE = {
  verdict: 'block',
  reason: 'safety check unavailable',
  categories: [],
  unavailable: true,
}

describe('moderateText', () => {
  test('default: posts { model, input } to {url}/moderations with the bearer key', async () => {
    const options = ModerationOptions.parse({ url: `${baseUrl}/`, apiKey: API_KEY })
    expect(await moderateText({ fetch }, { ...options, input: 'hello there' })).toEqual({
      flagged: false,
      categories: [],
    })
    expect(received).toHaveLength(1)
    expect(received[0]).toMatchObject({
      path: '/v1/moderations',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: { model: 'omni-moderation-latest', input: 'hello there' },
    })
  })

  test('behavior: without an API key no Authorization header is sent', async () => {
    const options = ModerationOptions.parse({ url: baseUrl, model: 'local-moderation' })
    await moderateText({ fetch }, { ...options, input: 'hi' })
    expect(received[0]?.headers.authorization).toBeUndefined()
    expect(received[0]?.body).toEqual({ model: 'local-moderation', input: 'hi' })
  })

  test('behavior: returns the flagged categories, sorted', async () => {
    mode = { kind: 'result', flagged: true, categories: ['violence', 'harassment'] }
    const options = ModerationOptions.parse({ url: baseUrl })
    expect(await moderateText({ fetch }, { ...options, input: 'x' })).toEqual({
      flagged: true,
      categories: ['harassment', 'violence'],
    })
  })

  test('error: failures throw ModerationUnavailableError', async () => {
    mode = { kind: 'status', status: 503 }
    const options = ModerationOptions.parse({ url: baseUrl })
    await expect(moderateText({ fetch }, { ...options, input: 'x' })).rejects.toThrow(
      ModerationUnavailableError,
    )
  })
})

describe('createSafetyCheck with a moderation endpoint', () => {
  test('default: unflagged text is allowed, and the key and text reach the endpoint', async () => {
    expect(await safetyWith()('I love hiking', { kind: 'post' })).toEqual({
      verdict: 'allow',
      reason: 'ok',
      categories: [],
    })
    expect(received[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`)
    expect(received[0]?.body).toMatchObject({ input: 'I love hiking' })
  })

  test.each([
    [['sexual/minors'], 'block', 'moderation: sexual/minors'],
    [['harassment', 'harassment/threatening'], 'block', 'moderation: harassment/threatening'],
    [['hate', 'hate/threatening'], 'block', 'moderation: hate/threatening'],
    [['violence', 'violence/graphic'], 'block', 'moderation: violence/graphic'],
    [['self-harm', 'self-harm/instructions'], 'block', 'moderation: self-harm/instructions'],
    [['harassment'], 'hold', 'moderation: harassment'],
    [['sexual'], 'hold', 'moderation: sexual'],
    [[], 'hold', 'moderation: flagged'],
  ] as const)('mapping: flagged %j -> %s (%s)', async (categories, verdict, reason) => {
    mode = { kind: 'result', flagged: true, categories: [...categories] }
    expect(await safetyWith()('some text', { kind: 'turn' })).toMatchObject({ verdict, reason })
  })

  test.each([
    ['HTTP 500', { kind: 'status', status: 500 }],
    ['HTTP 401 (bad key)', { kind: 'status', status: 401 }],
    ['a body that is not JSON', { kind: 'garbage' }],
    ['JSON without results', { kind: 'wrong-shape' }],
  ] as const)('error: %s fails closed', async (_, answerWith) => {
    mode = answerWith
    expect(await safetyWith()('I love hiking')).toEqual(UNAVAILABLE)
  })

  test('error: a slow endpoint times out and fails closed', async () => {
    mode = { kind: 'slow', ms: 3_000 }
    const started = performance.now()
    expect(await safetyWith({ timeoutMs: 150 })('I love hiking')).toEqual(UNAVAILABLE)
    expect(performance.now() - started).toBeLessThan(1_500)
  })

  test('error: headers then a stalled body also time out', async () => {
    mode = { kind: 'stalled-body' }
    const started = performance.now()
    expect(await safetyWith({ timeoutMs: 150 })('I love hiking')).toEqual(UNAVAILABLE)
    expect(performance.now() - started).toBeLessThan(1_500)
  })

  test('error: an unreachable endpoint fails closed', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const { port } = closed.address() as AddressInfo
    await new Promise((resolve) => closed.close(resolve))
    const safety = createSafetyCheck({ moderation: { url: `http://127.0.0.1:${port}/v1` } })
    expect(await safety('I love hiking')).toEqual(UNAVAILABLE)
  })

  test('behavior: a local block is final and skips the call, even if the endpoint is down', async () => {
    mode = { kind: 'status', status: 500 }
    expect(await safetyWith()('send nudes')).toMatchObject({
      verdict: 'block',
      reason: 'sexual solicitation',
    })
    expect(received).toHaveLength(0)
  })

  test('behavior: moderation only makes a verdict stricter', async () => {
    // Unflagged cannot relax a local hold.
    expect(await safetyWith()('that movie was shit')).toMatchObject({
      verdict: 'hold',
      reason: 'profanity',
    })
    expect(received).toHaveLength(1)
    // A blocking category turns a local hold into a block, keeping both categories.
    mode = { kind: 'result', flagged: true, categories: ['harassment/threatening'] }
    expect(await safetyWith()('that movie was shit')).toEqual({
      verdict: 'block',
      reason: 'moderation: harassment/threatening',
      categories: ['moderation:harassment/threatening', 'profanity'],
    })
  })

  test('behavior: without a moderation endpoint the local rules decide and nothing is called', async () => {
    const local = createSafetyCheck({ fetch: () => Promise.reject(new Error('no network')) })
    expect(await local('I love hiking')).toEqual({ verdict: 'allow', reason: 'ok', categories: [] })
    expect(await local('kill yourself')).toMatchObject({ verdict: 'block' })
    expect(received).toHaveLength(0)
  })

  test('behavior: a report flagged as threatening is held for a human', async () => {
    mode = { kind: 'result', flagged: true, categories: ['harassment/threatening'] }
    expect(await safetyWith()('they threatened me', { kind: 'report' })).toMatchObject({
      verdict: 'hold',
      reason: 'moderation: harassment/threatening',
    })
  })
})

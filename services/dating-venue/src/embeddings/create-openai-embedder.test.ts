import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest'
import { createOpenAiEmbedder } from './create-openai-embedder.ts'
import { EmbedderUnavailableError } from './embedder.ts'

// A fake OpenAI-compatible `/v1/embeddings` on a real port: each test picks how
// it answers, and every request it receives is recorded.
type Mode =
  | { kind: 'vectors'; dimension?: number; shuffle?: boolean }
  | { kind: 'status'; status: number }
  | { kind: 'garbage' }
  | { kind: 'raw'; body: unknown }
  | { kind: 'slow'; ms: number }

const API_KEY = 'sk-test-embeddings'
let mode: Mode
let received: {
  path: string
  headers: IncomingMessage['headers']
  body: { model: string; input: string[] }
}[] = []
let baseUrl: string
const sockets = new Set<Socket>()

// Text i gets [i + 1, 2, 0, ...]: unnormalised on purpose, and easy to recognise.
const vectorFor = (position: number, dimension: number) =>
  Array.from({ length: dimension }, (_, d) => (d === 0 ? position + 1 : d === 1 ? 2 : 0))

const answer = (response: ServerResponse, input: string[]) => {
  const json = (status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' })
    response.end(typeof body === 'string' ? body : JSON.stringify(body))
  }
  switch (mode.kind) {
    case 'vectors': {
      const data = input.map((_, index) => ({
        object: 'embedding',
        index,
        embedding: vectorFor(index, mode.kind === 'vectors' ? (mode.dimension ?? 4) : 4),
      }))
      if (mode.shuffle) data.reverse()
      return json(200, { object: 'list', data, model: 'fake', usage: { prompt_tokens: 1 } })
    }
    case 'status':
      return json(mode.status, { error: { message: 'nope' } })
    case 'garbage':
      return json(200, '{"data": [ not json')
    case 'raw':
      return json(200, mode.body)
    case 'slow':
      setTimeout(() => {
        if (!response.destroyed) json(200, { data: [] })
      }, mode.ms).unref()
  }
}

const server = createServer((request, response) => {
  let raw = ''
  request.on('data', (chunk) => {
    raw += chunk
  })
  request.on('end', () => {
    const body = JSON.parse(raw)
    received.push({ path: request.url ?? '', headers: request.headers, body })
    answer(response, body.input)
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
  for (const socket of sockets) socket.destroy()
  await new Promise((resolve) => server.close(resolve))
})
beforeEach(() => {
  mode = { kind: 'vectors' }
  received = []
})

const embedderFor = (options: Partial<Parameters<typeof createOpenAiEmbedder>[0]> = {}) =>
  createOpenAiEmbedder({
    url: baseUrl,
    apiKey: API_KEY,
    model: 'text-embedding-3-small',
    ...options,
  })

test('default', async () => {
  const embedder = embedderFor()
  expect(embedder.modelId).toBe(`openai:text-embedding-3-small@${new URL(baseUrl).host}`)
  expect(embedder.dimension).toBe(0)
  const vectors = await embedder.embed(['one', 'two'])
  expect(received).toHaveLength(1)
  expect(received[0]!.path).toBe('/v1/embeddings')
  expect(received[0]!.headers.authorization).toBe(`Bearer ${API_KEY}`)
  expect(received[0]!.headers['content-type']).toBe('application/json')
  expect(received[0]!.body).toEqual({ model: 'text-embedding-3-small', input: ['one', 'two'] })
  expect(vectors.map((vector) => Array.from(vector))).toEqual([
    [1 / Math.sqrt(5), 2 / Math.sqrt(5), 0, 0].map(Math.fround),
    [Math.SQRT1_2, Math.SQRT1_2, 0, 0].map(Math.fround),
  ])
  expect(embedder.dimension).toBe(4)
})

test('behavior: answers are ordered by index, not by position', async () => {
  mode = { kind: 'vectors', shuffle: true }
  const vectors = await embedderFor().embed(['a', 'b', 'c'])
  expect(vectors.map((vector) => Math.round((vector[0]! / vector[1]!) * 2))).toEqual([1, 2, 3])
})

test('behavior: no API key, no authorization header; a trailing slash is fine', async () => {
  await embedderFor({ apiKey: undefined, url: `${baseUrl}/` }).embed(['a'])
  expect(received[0]!.path).toBe('/v1/embeddings')
  expect(received[0]!.headers.authorization).toBeUndefined()
})

test('behavior: large calls are split into requests of maxBatch texts', async () => {
  const vectors = await embedderFor({ maxBatch: 2 }).embed(['a', 'b', 'c', 'd', 'e'])
  expect(received.map((request) => request.body.input)).toEqual([['a', 'b'], ['c', 'd'], ['e']])
  expect(vectors).toHaveLength(5)
})

test('behavior: no texts, no request', async () => {
  expect(await embedderFor().embed([])).toEqual([])
  expect(received).toHaveLength(0)
})

test('behavior: the dimension is enforced, configured or learned', async () => {
  await expect(embedderFor({ dimension: 8 }).embed(['a'])).rejects.toThrow(/expected 8 dimensions/)
  const learning = embedderFor()
  await learning.embed(['a'])
  mode = { kind: 'vectors', dimension: 6 }
  await expect(learning.embed(['a'])).rejects.toThrow(/expected 4 dimensions, got 6/)
})

test('error: timeout rejects', async () => {
  mode = { kind: 'slow', ms: 2_000 }
  const started = performance.now()
  await expect(embedderFor({ timeoutMs: 150 }).embed(['a'])).rejects.toBeInstanceOf(
    EmbedderUnavailableError,
  )
  expect(performance.now() - started).toBeLessThan(1_500)
})

test('error: close aborts a request in flight', async () => {
  mode = { kind: 'slow', ms: 2_000 }
  const embedder = embedderFor()
  const rejected = expect(embedder.embed(['a'])).rejects.toBeInstanceOf(EmbedderUnavailableError)
  await new Promise((resolve) => setTimeout(resolve, 50))
  await embedder.close()
  await rejected
  await expect(embedder.embed(['a'])).rejects.toThrow(/closed/)
})

test.each([401, 429, 500])('error: HTTP %i rejects', async (status) => {
  mode = { kind: 'status', status }
  await expect(embedderFor().embed(['a'])).rejects.toThrow(`answered ${status}`)
})

test('error: unreachable rejects', async () => {
  const embedder = embedderFor({ url: 'http://127.0.0.1:9/v1', timeoutMs: 1_000 })
  await expect(embedder.embed(['a'])).rejects.toBeInstanceOf(EmbedderUnavailableError)
})

test.each<[string, Mode]>([
  ['not JSON', { kind: 'garbage' }],
  ['no data', { kind: 'raw', body: { object: 'list' } }],
  ['an embedding as a string', { kind: 'raw', body: { data: [{ index: 0, embedding: 'AAAA' }] } }],
  ['too few embeddings', { kind: 'raw', body: { data: [] } }],
  [
    'a repeated index',
    {
      kind: 'raw',
      body: {
        data: [
          { index: 0, embedding: [1, 0] },
          { index: 0, embedding: [0, 1] },
        ],
      },
    },
  ],
  [
    'mixed lengths',
    {
      kind: 'raw',
      body: {
        data: [
          { index: 0, embedding: [1, 0] },
          { index: 1, embedding: [0, 1, 0] },
        ],
      },
    },
  ],
  [
    'a zero vector',
    {
      kind: 'raw',
      body: {
        data: [
          { index: 0, embedding: [0, 0] },
          { index: 1, embedding: [0, 1] },
        ],
      },
    },
  ],
])('error: malformed answer (%s) rejects', async (_, malformed) => {
  mode = malformed
  await expect(embedderFor().embed(['a', 'b'])).rejects.toBeInstanceOf(EmbedderUnavailableError)
})

import { Writable } from 'node:stream'
import { createRoute, z } from '@hono/zod-openapi'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createApp } from './create-app.ts'
import { ApiError } from './errors.ts'
import { jsonRoute } from './json-route.ts'
import type { RunningServer } from './serve.ts'
import { postJson, startTestServer } from './testing.ts'

const logLines: string[] = []
const logger = pino(
  { level: 'info' },
  new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk))
      done()
    },
  }),
)

const app = createApp({ name: 'kit-test', version: '9.9.9', logger, maxBodyBytes: 1024 })
const echoRoute = (path: string) =>
  createRoute({
    method: 'post',
    path,
    request: {
      body: {
        required: true,
        content: {
          'application/json': { schema: z.object({ word: z.string().max(10) }).strict() },
        },
      },
    },
    responses: {
      200: {
        description: 'echo',
        content: { 'application/json': { schema: z.object({ word: z.string() }) } },
      },
    },
  })
app.openapi(echoRoute('/echo'), (c) => c.json({ word: c.req.valid('json').word }, 200))
jsonRoute(app, echoRoute('/echo-fast'), (c, body) => c.json({ word: body.word }, 200))
app.get('/boom', () => {
  throw new Error('database password is hunter2')
})
// A database that cannot be reached, as drizzle wraps node-postgres's error.
app.get('/database-down', () => {
  throw new Error('Failed query: select 1', {
    cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    }),
  })
})
app.get('/teapot', () => {
  throw new ApiError(418, 'short and stout', { reason: 'teapot' })
})

let server: RunningServer
beforeAll(async () => {
  server = await startTestServer(app)
})
afterAll(() => server.close())

describe.each(['/echo', '/echo-fast'])('error conventions on %s', (echo) => {
  test('default: a valid body passes the schema', async () => {
    const response = await postJson(`${server.url}${echo}`, { word: 'hi' })
    expect(response.status).toBe(200)
    expect(response.json).toEqual({ word: 'hi' })
  })

  test('behavior: schema failure is 400 with zod issues', async () => {
    const response = await postJson(`${server.url}${echo}`, { word: 'hi', extra: 1 })
    expect(response.status).toBe(400)
    expect(response.json.error).toBe('invalid request')
    expect(response.json.issues[0].code).toBe('unrecognized_keys')
  })

  test('behavior: malformed JSON is 400', async () => {
    const response = await postJson(`${server.url}${echo}`, '{"word":')
    expect(response.status).toBe(400)
    expect(response.json).toEqual({ error: 'malformed JSON body' })
  })

  test('behavior: body over the limit is 413', async () => {
    const response = await postJson(`${server.url}${echo}`, { word: 'x'.repeat(2000) })
    expect(response.status).toBe(413)
    expect(response.json.error).toMatch(/over 1024 bytes/)
  })

  test('behavior: a chunked body (no Content-Length) over the limit is 413 too', async () => {
    const chunk = new TextEncoder().encode(`{"word":"${'x'.repeat(600)}`)
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(chunk)
        controller.enqueue(chunk)
        controller.close()
      },
    })
    const response = await fetch(`${server.url}${echo}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit)
    expect(response.status).toBe(413)
    const small = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"word":"ok"}'))
        controller.close()
      },
    })
    const accepted = await fetch(`${server.url}${echo}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: small,
      duplex: 'half',
    } as RequestInit)
    expect(await accepted.json()).toEqual({ word: 'ok' })
  })

  test('behavior: a non-JSON body on a JSON route is 415', async () => {
    const response = await fetch(`${server.url}${echo}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'word=hi',
    })
    expect(response.status).toBe(415)
    expect(await response.json()).toEqual({ error: 'Unsupported Media Type' })
  })

  test('behavior: unknown route is 404 JSON', async () => {
    const response = await fetch(`${server.url}/nowhere`)
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'not found' })
  })

  test('behavior: wrong method is 405 with Allow', async () => {
    const response = await fetch(`${server.url}${echo}`, { method: 'GET' })
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('POST')
    expect(await response.json()).toEqual({ error: 'method not allowed' })
  })

  test('behavior: ApiError keeps its status and extras', async () => {
    const response = await fetch(`${server.url}/teapot`)
    expect(response.status).toBe(418)
    expect(await response.json()).toEqual({ error: 'short and stout', reason: 'teapot' })
  })

  test('security: an unhandled error is 500 internal, cause logged and never sent', async () => {
    const response = await fetch(`${server.url}/boom`)
    const text = await response.text()
    expect(response.status).toBe(500)
    expect(JSON.parse(text)).toEqual({ error: 'internal' })
    expect(text).not.toContain('hunter2')
    expect(logLines.join('')).toContain('hunter2')
  })

  test('behavior: a database that cannot be reached is a retryable 503, not a 500', async () => {
    const response = await fetch(`${server.url}/database-down`)
    expect(response.status).toBe(503)
    expect(response.headers.get('retry-after')).toBe('1')
    expect(await response.json()).toEqual({ error: 'service unavailable: retry shortly' })
  })

  test('behavior: requests are logged with method, path and status', async () => {
    await fetch(`${server.url}/health`)
    const line = logLines.map((l) => JSON.parse(l)).find((l) => l.path === '/health')
    expect(line).toMatchObject({ method: 'GET', status: 200, msg: 'request' })
  })
})

describe('built-in routes', () => {
  test('GET /health', async () => {
    const response = await fetch(`${server.url}/health`)
    expect(await response.json()).toEqual({ status: 'ok', service: 'kit-test', version: '9.9.9' })
  })

  test('GET /openapi.json documents the routes as OpenAPI 3.1.0', async () => {
    const document = await (await fetch(`${server.url}/openapi.json`)).json()
    expect(document.openapi).toBe('3.1.0')
    expect(document.info).toEqual({ title: 'kit-test', version: '9.9.9' })
    expect(
      document.paths['/echo'].post.requestBody.content['application/json'].schema,
    ).toMatchObject({
      additionalProperties: false,
    })
  })
})

import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { facilitatorSettle, facilitatorVerify } from './facilitator-client.ts'

// A facilitator stand-in answering each path as the test says, over real HTTP.
type Answer = (
  reply: (status: number, body: string) => void,
  request: IncomingMessage,
  body: string,
) => void
const answers = new Map<string, Answer>()
let server: Server
let url = ''
beforeAll(async () => {
  server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => {
      body += chunk
    })
    request.on('end', () => {
      answers.get(request.url ?? '')?.(
        (status, text) => {
          response.writeHead(status, { 'content-type': 'application/json' })
          response.end(text)
        },
        request,
        body,
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => {
  server.closeAllConnections()
  server.close()
})

describe('the facilitator client', () => {
  test('sends the body as JSON (bigints as strings) with the configured headers, and reads the answer', async () => {
    let seen: Record<string, unknown> = {}
    answers.set('/verify', (reply, request, body) => {
      seen = {
        key: request.headers['x-api-key'],
        type: request.headers['content-type'],
        body: JSON.parse(body),
      }
      reply(200, JSON.stringify({ isValid: true }))
    })
    const verified = await facilitatorVerify(
      { url: `${url}/`, headers: { 'x-api-key': 'k' } },
      { amount: 5_000_000n },
    )
    expect(verified).toEqual({ ok: true, value: { isValid: true } })
    expect(seen).toEqual({ key: 'k', type: 'application/json', body: { amount: '5000000' } })
  })

  test("a facilitator URL with a path keeps it (CDP's is /platform/v2/x402)", async () => {
    answers.set('/platform/v2/x402/settle', (reply) => reply(200, '{"success":true}'))
    for (const base of [`${url}/platform/v2/x402`, `${url}/platform/v2/x402/`]) {
      expect(await facilitatorSettle({ url: base }, {})).toEqual({
        ok: true,
        value: { success: true },
      })
    }
  })

  test('a 400 with a verdict is the facilitator answering, not failing', async () => {
    answers.set('/verify', (reply) =>
      reply(400, JSON.stringify({ isValid: false, invalidReason: 'invalid_signature' })),
    )
    expect(await facilitatorVerify({ url }, {})).toEqual({
      ok: true,
      value: { isValid: false, invalidReason: 'invalid_signature' },
    })
  })

  test('errors: a 5xx, a body that is not JSON and a JSON that is no object are failures that reached it', async () => {
    answers.set('/settle', (reply) => reply(500, JSON.stringify({ error: 'internal' })))
    expect(await facilitatorSettle({ url }, {})).toEqual({
      ok: false,
      detail: 'facilitator /settle answered 500',
      reached: true,
    })
    answers.set('/settle', (reply) => reply(200, 'not json'))
    expect(await facilitatorSettle({ url }, {})).toEqual({
      ok: false,
      detail: 'facilitator /settle answered 200 without JSON',
      reached: true,
    })
    answers.set('/settle', (reply) => reply(200, '"yes"'))
    expect(await facilitatorSettle({ url }, {})).toEqual({
      ok: false,
      detail: 'facilitator /settle answered no object',
      reached: true,
    })
  })

  test('errors: an answer later than the timeout may have settled (reached), named as a timeout', async () => {
    answers.set('/settle', (reply) => {
      setTimeout(() => reply(200, JSON.stringify({ success: true })), 500)
    })
    expect(await facilitatorSettle({ url, timeoutMs: 100 }, {})).toEqual({
      ok: false,
      detail: 'facilitator /settle unreachable: TimeoutError',
      reached: true,
    })
  })

  test('errors: a refused connection proves the call never arrived', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    expect(await facilitatorSettle({ url: `http://127.0.0.1:${port}` }, {})).toEqual({
      ok: false,
      detail: 'facilitator /settle unreachable: ECONNREFUSED',
      reached: false,
    })
  })
})

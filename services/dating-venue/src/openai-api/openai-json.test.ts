import { createServer } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postOpenAiJson } from './openai-json.ts'

describe('postOpenAiJson: one client for embeddings, moderations and chat', () => {
  let url = ''
  const seen: Array<{ path: string | undefined; body: string; authorization?: string }> = []
  const server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8')
    })
    request.on('end', () => {
      seen.push({
        path: request.url,
        body,
        ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}),
      })
      if (body.includes('stall')) return
      if (body.includes('down')) {
        response.statusCode = 503
        return response.end('{"error":"down"}')
      }
      response.end(body.includes('garbled') ? 'not json' : JSON.stringify({ echoed: body }))
    })
  })
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1/`
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  // Over kept-alive node:http (the chat) and through fetch (embeddings, moderation): one behaviour.
  describe.each([
    ['node:http', undefined],
    ['fetch', globalThis.fetch],
  ])('over %s', (_, fetch) => {
    const send = (payload: unknown, apiKey?: string, timeoutMs = 2_000) =>
      postOpenAiJson({ url, apiKey, timeoutMs }, 'moderations', payload, { fetch })

    it('posts the payload as JSON to {url}/{path} with the bearer key, and answers the parsed 2xx body', async () => {
      expect(await send({ input: 'hello' }, 'k')).toEqual({
        ok: true,
        body: { echoed: '{"input":"hello"}' },
      })
      expect(seen.at(-1)).toEqual({
        path: '/v1/moderations',
        body: '{"input":"hello"}',
        authorization: 'Bearer k',
      })
      await send({ input: 'no key' })
      expect(seen.at(-1)).not.toHaveProperty('authorization')
    })

    it('answers another status as it came, and rejects a garbled body or a stalled server', async () => {
      expect(await send({ input: 'down' })).toEqual({ ok: false, status: 503 })
      await expect(send({ input: 'garbled' })).rejects.toThrow(SyntaxError)
      const started = performance.now()
      await expect(send({ input: 'stall' }, undefined, 200)).rejects.toThrow()
      expect(performance.now() - started).toBeLessThan(1_500)
    })
  })

  it('through fetch, the caller’s signal aborts the exchange (an embedder closing)', async () => {
    const controller = new AbortController()
    const pending = postOpenAiJson(
      { url, timeoutMs: 10_000 },
      'embeddings',
      { input: 'stall' },
      { fetch: globalThis.fetch, signal: controller.signal },
    )
    controller.abort()
    await expect(pending).rejects.toThrow()
  })
})

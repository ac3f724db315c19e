import { createServer, type ServerResponse } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postJson } from './post-json.ts'

describe('postJson: the model call over kept-alive node:http', () => {
  let url = ''
  const seen: Array<{ body: string; authorization: string | undefined }> = []
  const server = createServer((request, response: ServerResponse) => {
    let body = ''
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8')
    })
    request.on('end', () => {
      seen.push({ body, authorization: request.headers.authorization })
      if (request.url === '/stall') return
      if (request.url === '/huge') return response.end('a'.repeat(1_100_000))
      response.statusCode = request.url === '/down' ? 503 : 200
      response.end(JSON.stringify({ echoed: JSON.parse(body) }))
    })
  })
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  const send = (path: string, timeoutMs = 2_000) =>
    postJson(`${url}${path}`, {
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify({ question: 'a warm about section' }),
      timeoutMs,
    })

  it('answers the status and the body, sending the headers and body as given', async () => {
    const first = await send('/ok')
    const second = await send('/ok')
    expect(first).toEqual({ status: 200, text: '{"echoed":{"question":"a warm about section"}}' })
    expect(second.status).toBe(200)
    expect(seen.at(-1)).toEqual({
      body: '{"question":"a warm about section"}',
      authorization: 'Bearer k',
    })
    expect((await send('/down')).status).toBe(503)
  })

  it('rejects a server that never answers within the deadline, and an answer over 1 MB', async () => {
    const started = performance.now()
    await expect(send('/stall', 200)).rejects.toThrow('no answer within 200 ms')
    expect(performance.now() - started).toBeLessThan(1_500)
    await expect(send('/huge')).rejects.toThrow('answer too large')
    await expect(
      postJson('ftp://127.0.0.1/', { headers: {}, body: '', timeoutMs: 100 }),
    ).rejects.toThrow('unsupported protocol')
  })
})

import { createHash } from 'node:crypto'
import { createServer, type Server } from 'node:http'

/**
 * A stand-in for an OpenAI-compatible `/v1/embeddings` API (an outside
 * service), over real HTTP, for tests that are not about the model: each
 * text maps to a deterministic unit vector (from its sha256) unless a test
 * pins one; `setDown(true)` makes it answer 503.
 */
export const startFakeEmbeddings = async ({ dimension = 32 } = {}) => {
  const pinned = new Map<string, number[]>()
  let down = false
  let calls = 0
  const vectorOf = (text: string) => {
    const fixed = pinned.get(text)
    if (fixed) return fixed
    const bytes = createHash('sha256').update(text).digest()
    const raw = Array.from(
      { length: dimension },
      (_, i) => (bytes[i % bytes.length]! - 127.5) / 127.5,
    )
    const norm = Math.hypot(...raw)
    return raw.map((value) => value / norm)
  }
  const server: Server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => {
      calls++
      response.setHeader('content-type', 'application/json')
      if (down || request.url !== '/v1/embeddings') {
        response.statusCode = down ? 503 : 404
        response.end(JSON.stringify({ error: { message: 'unavailable' } }))
        return
      }
      const { input } = JSON.parse(body) as { input: string[] }
      response.end(
        JSON.stringify({
          object: 'list',
          data: input.map((text, index) => ({
            object: 'embedding',
            index,
            embedding: vectorOf(text),
          })),
          model: 'fake-embeddings',
        }),
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}/v1`,
    dimension,
    pin: (text: string, vector: number[]) => pinned.set(text, vector),
    setDown: (value: boolean) => {
      down = value
    },
    calls: () => calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
export type FakeEmbeddings = Awaited<ReturnType<typeof startFakeEmbeddings>>

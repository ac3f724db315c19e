import { createHash } from 'node:crypto'
import { createServer } from 'node:http'

const DIMENSION = 32

/** A unit vector from the text's sha256: the same text, the same vector. */
const vectorOf = (text: string) => {
  const bytes = createHash('sha256').update(text).digest()
  const raw = Array.from(
    { length: DIMENSION },
    (_, i) => (bytes[i % bytes.length]! - 127.5) / 127.5,
  )
  const norm = Math.hypot(...raw)
  return raw.map((value) => value / norm)
}

/**
 * An OpenAI-compatible stand-in for the outside services the venue calls
 * (`/v1/embeddings`, `/v1/moderations`: nothing flagged), answering at once
 * and counting every call by path, so the bench can say how many outbound
 * calls each client's requests caused.
 */
export const startModelStandIn = async () => {
  const calls = { embeddings: 0, moderations: 0, other: 0 }
  const server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => {
      response.setHeader('content-type', 'application/json')
      if (request.url === '/v1/embeddings') {
        calls.embeddings++
        const { input } = JSON.parse(body) as { input: string[] | string }
        const texts = Array.isArray(input) ? input : [input]
        response.end(
          JSON.stringify({
            object: 'list',
            data: texts.map((text, index) => ({
              object: 'embedding',
              index,
              embedding: vectorOf(text),
            })),
            model: 'stand-in',
          }),
        )
      } else if (request.url === '/v1/moderations') {
        calls.moderations++
        const { input } = JSON.parse(body) as { input: string[] | string }
        const count = Array.isArray(input) ? input.length : 1
        response.end(
          JSON.stringify({
            id: 'modr-stand-in',
            model: 'stand-in',
            results: Array.from({ length: count }, () => ({ flagged: false, categories: {} })),
          }),
        )
      } else {
        calls.other++
        response.statusCode = 404
        response.end(JSON.stringify({ error: { message: 'not here' } }))
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}/v1`,
    calls: () => ({ ...calls }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
export type ModelStandIn = Awaited<ReturnType<typeof startModelStandIn>>

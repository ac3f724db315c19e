import { createServer, type IncomingMessage, request } from 'node:http'
import type { AddressInfo } from 'node:net'

export type NextUpstreamProxy = {
  url: string
  /** Requests sent to the next replica after the first refused them (or, GETs, failed them). */
  retries: () => number
  /** Requests no replica answered (the proxy answered 502): failed requests. */
  failures: () => number
  close: () => Promise<void>
}

const readBody = async (incoming: IncomingMessage) => {
  const chunks: Buffer[] = []
  for await (const chunk of incoming) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * The load balancer of the deployment recipe (ops/caddy/Caddyfile) in
 * Node: round robin over `targets`, `X-Forwarded-For` appended, and
 * Caddy's retry rule: a request that never reached its replica (the
 * connection refused while it restarts) goes to the next one, whatever its
 * method; one that reached it and got no answer goes again only if it is a
 * GET (or HEAD, OPTIONS). The body is read first so that it can be sent
 * again. A connection per request (no keep-alive upstream), so that a
 * replica draining on SIGTERM is refused at connect, not in the middle of a
 * reused socket. A paid POST that reached a replica is never sent twice:
 * the replica must answer it while it drains.
 *
 * @example const proxy = await startNextUpstreamProxy([one.url, two.url]); await fetch(`${proxy.url}/health`)
 */
export const startNextUpstreamProxy = async (
  targets: readonly string[],
): Promise<NextUpstreamProxy> => {
  let next = 0
  let retries = 0
  let failures = 0
  const server = createServer(async (incoming, outgoing) => {
    const body = await readBody(incoming)
    // Hop-by-hop headers stay on this hop; the body goes on with its length.
    const { 'transfer-encoding': _chunked, connection: _connection, ...headers } = incoming.headers
    const peer = incoming.socket.remoteAddress ?? ''
    const forwarded = incoming.headers['x-forwarded-for']
    const first = next++
    const attempt = (tried: number) => {
      const target = new URL(targets[(first + tried) % targets.length]!)
      let answered = false
      let reached = false
      const upstream = request(
        {
          host: target.hostname,
          port: target.port,
          method: incoming.method,
          path: incoming.url,
          agent: false,
          headers: {
            ...headers,
            host: target.host,
            connection: 'close',
            'content-length': String(body.length),
            'x-forwarded-for': forwarded ? `${forwarded}, ${peer}` : peer,
          },
        },
        (answer) => {
          answered = true
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(outgoing)
          answer.once('error', () => outgoing.destroy())
        },
      )
      upstream.once('socket', (socket) => socket.once('connect', () => (reached = true)))
      upstream.once('error', () => {
        if (answered) return void outgoing.destroy()
        const again = !reached || IDEMPOTENT.has(incoming.method ?? '')
        if (again && tried + 1 < targets.length) {
          retries += 1
          return attempt(tried + 1)
        }
        failures += 1
        outgoing.writeHead(502).end()
      })
      upstream.end(body)
    }
    attempt(0)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    retries: () => retries,
    failures: () => failures,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

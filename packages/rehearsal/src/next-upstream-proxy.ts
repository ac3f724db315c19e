import { createServer, type IncomingMessage, request } from 'node:http'
import type { AddressInfo } from 'node:net'

export type NextUpstreamProxy = {
  url: string
  /** Requests that a replica failed before answering and the next one served. */
  retries: () => number
  /** Requests no replica answered (the proxy answered 502). */
  failures: () => number
  close: () => Promise<void>
}

const readBody = async (incoming: IncomingMessage) => {
  const chunks: Buffer[] = []
  for await (const chunk of incoming) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/**
 * The load balancer of the deployment recipe, in Node: round robin over
 * `targets`, `X-Forwarded-For` appended, and, as nginx's
 * `proxy_next_upstream error`, a request whose replica fails before
 * answering (connection refused while it restarts, a connection reset as it
 * closes) goes to the next replica. The body is read first so that it can
 * be sent again. A paid request sent twice is safe: the payment is the
 * request's identity and the ledger delivers it once; the rehearsal's
 * money checks are what would show otherwise. A connection per request
 * (no keep-alive upstream), so that a replica draining on SIGTERM is
 * refused at connect, not in the middle of a reused socket.
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
      upstream.once('error', () => {
        if (answered) return void outgoing.destroy()
        if (tried + 1 < targets.length) {
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

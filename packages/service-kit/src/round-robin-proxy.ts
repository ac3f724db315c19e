import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A plain round-robin HTTP proxy in front of `targets` (replicas), for tests
 * of what N replicas do together: each request goes to the next replica, with
 * `X-Forwarded-For` appended the way a load balancer does (so replicas started
 * with `TRUST_FORWARDED_FOR=1` see the client's address, not the proxy's).
 *
 * @example const proxy = await startRoundRobinProxy([one.url, two.url]); await fetch(`${proxy.url}/health`)
 */
export const startRoundRobinProxy = async (targets: readonly string[]) => {
  let next = 0
  const server = createServer((incoming, outgoing) => {
    const target = new URL(targets[next++ % targets.length]!)
    const peer = incoming.socket.remoteAddress ?? ''
    const forwarded = incoming.headers['x-forwarded-for']
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: {
          ...incoming.headers,
          host: target.host,
          'x-forwarded-for': forwarded ? `${forwarded}, ${peer}` : peer,
        },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(outgoing)
      },
    )
    upstream.on('error', () => {
      outgoing.writeHead(502).end()
    })
    incoming.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

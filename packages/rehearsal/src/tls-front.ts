import { request } from 'node:http'
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'

export type TlsFront = { url: string; close: () => Promise<void> }

/**
 * HTTPS on `hostname` in front of a plain-HTTP stand-in at `target`, with
 * `cert` and `key` (a server certificate for `hostname`): the services meet
 * the stand-in as they meet a public facilitator, over TLS by name, trusting
 * it only through their CA file. Listens on the address `hostname` resolves
 * to (`address`).
 */
export const startTlsFront = async ({
  target,
  hostname,
  address,
  cert,
  key,
}: {
  target: string
  hostname: string
  address: string
  cert: string
  key: string
}): Promise<TlsFront> => {
  const upstream = new URL(target)
  const server = createServer({ cert, key }, (incoming, outgoing) => {
    const forwarded = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: upstream.host },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(outgoing)
      },
    )
    forwarded.once('error', () => outgoing.destroy())
    incoming.pipe(forwarded)
  })
  await new Promise<void>((resolve) => server.listen(0, address, resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `https://${hostname}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

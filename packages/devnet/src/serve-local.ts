import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'

export type ServeLocalReturnType = {
  url: string
  port: number
  /** Stops listening and drops keep-alive sockets, so it never waits on an idle client. */
  close: () => Promise<void>
}

/**
 * Serves a fetch handler (e.g. a Hono app's `fetch`) on 127.0.0.1 at an ephemeral port.
 *
 * @example
 * const server = await serveLocal(app.fetch)
 * await fetch(`${server.url}/paid`)
 * await server.close()
 */
export const serveLocal = async (
  fetch: (request: Request) => Response | Promise<Response>,
): Promise<ServeLocalReturnType> => {
  const { server, port } = await new Promise<{ server: ReturnType<typeof serve>; port: number }>(
    (resolve, reject) => {
      const server = serve({ fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) =>
        resolve({ server, port: info.port }),
      )
      server.once('error', reject)
    },
  )
  const close = () =>
    new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()))
      if ('closeAllConnections' in server) server.closeAllConnections()
    })
  return { url: `http://127.0.0.1:${port}`, port, close }
}

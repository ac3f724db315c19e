import { once } from 'node:events'
import { type AddressInfo, createConnection, createServer, type Socket } from 'node:net'

export type StartTcpFaultProxyParameters = {
  /** The upstream TCP server, e.g. PostgreSQL's host and port. */
  host: string
  port: number
}

/** A running fault proxy: where to connect, and its switch. */
export type TcpFaultProxy = {
  /** Where to connect instead of the upstream: 127.0.0.1 and an ephemeral port. */
  host: string
  port: number
  /** Destroys every live connection and refuses new ones (accepted, then reset) until restore. */
  cut: () => void
  /** Lets new connections through again; connections cut stay dead. */
  restore: () => void
  /** Stops listening and destroys every connection. */
  close: () => Promise<void>
}

export type StartTcpFaultProxyReturnType = TcpFaultProxy

/**
 * A TCP proxy on 127.0.0.1 in front of one server, with a switch that cuts it: while cut,
 * clients fail fast (connection reset) rather than hang, as they would on a stopped database.
 * A `pg` Pool behind it needs an `'error'` listener: its idle clients die on `cut()`.
 *
 * @example
 * const proxy = await startTcpFaultProxy({ host: '127.0.0.1', port: 5432 })
 * const pool = new pg.Pool({ connectionString: proxiedPostgresUrl(databaseUrl, proxy) })
 * proxy.cut() // queries now fail at once
 * proxy.restore()
 */
export const startTcpFaultProxy = async ({
  host,
  port,
}: StartTcpFaultProxyParameters): Promise<StartTcpFaultProxyReturnType> => {
  const live = new Set<Socket>()
  let isCut = false

  const server = createServer((client) => {
    client.on('error', () => undefined)
    if (isCut) {
      client.resetAndDestroy()
      return
    }
    const upstream = createConnection({ host, port })
    upstream.on('error', () => undefined)
    for (const socket of [client, upstream]) {
      live.add(socket)
      // Either side ending or failing ends both, as a direct connection would.
      socket.once('close', () => {
        live.delete(socket)
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream)
    upstream.pipe(client)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')

  const destroyAll = () => {
    // A reset, not a FIN, so the client sees the failure at once (ECONNRESET).
    for (const socket of live) socket.connecting ? socket.destroy() : socket.resetAndDestroy()
    live.clear()
  }
  return {
    host: '127.0.0.1',
    port: (server.address() as AddressInfo).port,
    cut: () => {
      isCut = true
      destroyAll()
    },
    restore: () => {
      isCut = false
    },
    close: async () => {
      const closed = new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      )
      destroyAll()
      await closed
    },
  }
}

import { once } from 'node:events'
import {
  type AddressInfo,
  createConnection,
  createServer,
  type Server,
  type Socket,
} from 'node:net'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { proxiedPostgresUrl } from './proxied-postgres-url.ts'
import { startTcpFaultProxy } from './tcp-fault-proxy.ts'

let echo: Server
let echoPort: number

beforeAll(async () => {
  echo = createServer((socket) => {
    socket.on('error', () => undefined)
    socket.pipe(socket)
  })
  echo.listen(0, '127.0.0.1')
  await once(echo, 'listening')
  echoPort = (echo.address() as AddressInfo).port
})

afterAll(async () => {
  await new Promise((resolve) => echo.close(resolve))
})

const open = (port: number) => createConnection({ host: '127.0.0.1', port }).on('error', () => {})

const connect = async (port: number) => {
  const socket = open(port)
  await once(socket, 'connect')
  return socket
}

/** Writes `text` and reads it back through the echo server. */
const roundTrip = async (socket: Socket, text: string) => {
  socket.write(text)
  const [data] = await once(socket, 'data')
  return String(data)
}

/** Resolves when the socket is closed, with whether it closed on an error (e.g. a reset). */
const closed = (socket: Socket) =>
  // Not events.once: it rejects on the 'error' that comes with a reset.
  new Promise<boolean>((resolve) =>
    socket.closed ? resolve(true) : socket.once('close', (hadError) => resolve(hadError)),
  )

describe('startTcpFaultProxy', () => {
  test('passes bytes both ways; cut kills live and new connections; restore lets them in', async () => {
    const proxy = await startTcpFaultProxy({ host: '127.0.0.1', port: echoPort })
    try {
      expect(proxy.host).toBe('127.0.0.1')
      expect(proxy.port).not.toBe(echoPort)
      const live = await connect(proxy.port)
      expect(await roundTrip(live, 'ping')).toBe('ping')

      proxy.cut()
      expect(await closed(live)).toBe(true)
      // The reset may come before or after the client sees its handshake complete.
      expect(await closed(open(proxy.port))).toBe(true)

      proxy.restore()
      const again = await connect(proxy.port)
      expect(await roundTrip(again, 'pong')).toBe('pong')
      again.destroy()
    } finally {
      await proxy.close()
    }
  })

  test('close stops listening and ends live connections', async () => {
    const proxy = await startTcpFaultProxy({ host: '127.0.0.1', port: echoPort })
    const live = await connect(proxy.port)
    await proxy.close()
    await closed(live)
    const refused = createConnection({ host: '127.0.0.1', port: proxy.port })
    const [error] = await once(refused, 'error')
    expect(error).toMatchObject({ code: 'ECONNREFUSED' })
  })

  const databaseUrl = process.env.TEST_DATABASE_URL
  test.skipIf(!databaseUrl)(
    'a pg Pool through it answers, fails fast while cut, and answers after restore',
    async () => {
      const { hostname, port } = new URL(databaseUrl!)
      const proxy = await startTcpFaultProxy({ host: hostname, port: Number(port || 5432) })
      const pool = new pg.Pool({ connectionString: proxiedPostgresUrl(databaseUrl!, proxy) })
      // Idle clients die on cut(); without a listener the pool's 'error' would be thrown.
      pool.on('error', () => undefined)
      try {
        expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }])
        const inFlight = pool.query('SELECT pg_sleep(10)')

        proxy.cut()
        const started = performance.now()
        await expect(inFlight).rejects.toThrow()
        await expect(pool.query('SELECT 1')).rejects.toThrow()
        expect(performance.now() - started).toBeLessThan(1_000)

        proxy.restore()
        expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }])
      } finally {
        await pool.end()
        await proxy.close()
      }
    },
  )
})

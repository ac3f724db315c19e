import { Writable } from 'node:stream'
import { PGlite } from '@electric-sql/pglite'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { sql } from 'drizzle-orm'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createApp } from './create-app.ts'
import { testBackends } from './db/test-database.ts'
import { createLogger } from './logger.ts'
import { defineMcpTool, mountMcp } from './mcp.ts'
import { sanitizeError } from './sanitize-error.ts'
import type { RunningServer } from './serve.ts'
import { postJson, startTestServer } from './testing.ts'

// User text that must never reach a log line, whatever the driver puts in its errors.
const SECRET = 'lighthouse-keeper-secret-7731'
const SECRET_NUMBER = 2_147_483_999

/** A logger whose JSON lines the test reads back. */
const capturedLogger = () => {
  const lines: string[] = []
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk))
      done()
    },
  })
  return { logger: createLogger({ name: 'log-test', level: 'info', destination }), lines }
}

describe.each(testBackends(process.env.TEST_DATABASE_URL))('error logs on $name', ({ open }) => {
  const { logger, lines } = capturedLogger()
  let server: RunningServer
  let client: Client
  let close: () => Promise<void>
  let drop: () => Promise<void>

  beforeAll(async () => {
    const database = await open()
    drop = database.drop
    let execute: (query: ReturnType<typeof sql>) => Promise<unknown>
    if (database.url) {
      const pool = new pg.Pool({ connectionString: database.url, max: 2 })
      const db = drizzlePg(pool)
      execute = (query) => db.execute(query)
      close = () => pool.end()
    } else {
      const pglite = await PGlite.create('memory://')
      const db = drizzlePglite(pglite)
      execute = (query) => db.execute(query)
      close = () => pglite.close()
    }
    await execute(sql`CREATE TABLE people (id serial PRIMARY KEY, handle text UNIQUE, n integer)`)
    await execute(sql`INSERT INTO people (handle, n) VALUES (${SECRET}, 1)`)
    // Values straight into the query, as a route that forgot its schema would.
    const insert = (body: { handle?: string; n?: number }) =>
      execute(sql`INSERT INTO people (handle, n) VALUES (${body.handle ?? null}, ${body.n ?? 1})`)

    const app = createApp({ name: 'log-test', version: '1.0.0', logger })
    app.post('/people', async (c) => {
      await insert((await c.req.json()) as { handle?: string })
      return c.json({ ok: true })
    })
    mountMcp(app, {
      name: 'log-test',
      version: '1.0.0',
      tools: [
        defineMcpTool({
          name: 'add_person',
          title: 'Add a person',
          description: 'inserts whatever it is given',
          inputSchema: z.object({ handle: z.string().optional(), n: z.number().optional() }),
          handler: async (body) => {
            await insert(body)
            return { ok: true }
          },
        }),
      ],
    })
    server = await startTestServer(app)
    client = new Client({ name: 'log-test-client', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)))
  }, 60_000)
  afterAll(async () => {
    await client?.close()
    await server?.close()
    await close?.()
    await drop?.()
  })

  const failures: Array<[string, { handle?: string; n?: number }, string]> = [
    ['U+0000 in text', { handle: `${SECRET}\u0000more` }, '22021'],
    ['an integer outside int4', { n: SECRET_NUMBER }, '22003'],
    ['a unique violation (its detail names the value)', { handle: SECRET }, '23505'],
  ]

  it.each(failures)(
    'HTTP: %s is a 500 internal, logged without the user text',
    async (_, body, code) => {
      lines.length = 0
      const answer = await postJson(`${server.url}/people`, body)
      expect(answer.status).toBe(500)
      expect(answer.json).toEqual({ error: 'internal' })
      logger.flush()
      const line = lines.find((text) => text.includes('unhandled error'))
      expect(line).toBeDefined()
      const logged = JSON.parse(line!) as {
        err: { name: string; message: string; stack: string; cause: { code: string } }
      }
      expect(logged.err.name).toBe('DrizzleQueryError')
      expect(logged.err.message).toMatch(/^Failed query: INSERT INTO people/)
      expect(logged.err.stack).toContain('    at ')
      expect(logged.err.cause.code).toBe(code)
      expect(line).not.toContain(SECRET)
      expect(line).not.toContain(String(SECRET_NUMBER))
      expect(line).not.toContain('params')
    },
  )

  it.each(failures)(
    'MCP: %s is the tool error internal, logged without the user text',
    async (_, body, code) => {
      lines.length = 0
      const result = await client.callTool({ name: 'add_person', arguments: body })
      expect(result.isError).toBe(true)
      expect(result.content).toEqual([{ type: 'text', text: '{"error":"internal"}' }])
      logger.flush()
      const line = lines.find((text) => text.includes('unhandled tool error'))
      expect(line).toBeDefined()
      expect(JSON.parse(line!).err.cause.code).toBe(code)
      expect(JSON.parse(line!).tool).toBe('add_person')
      expect(line).not.toContain(SECRET)
      expect(line).not.toContain(String(SECRET_NUMBER))
    },
  )

  it('the logger sanitizes any err it is given, raw driver errors included', async () => {
    lines.length = 0
    let caught: unknown
    try {
      throw Object.assign(new Error(`value "${SECRET}" is out of range\nparams: ${SECRET}`), {
        code: '22003',
        detail: `Key (handle)=(${SECRET}) already exists.`,
        where: SECRET,
      })
    } catch (error) {
      caught = error
    }
    logger.error({ err: caught }, 'direct')
    logger.flush()
    const line = lines.find((text) => text.includes('"direct"'))!
    expect(JSON.parse(line).err).toMatchObject({
      code: '22003',
      message: 'value "…" is out of range',
    })
    expect(line).not.toContain(SECRET)
  })
})

describe('sanitizeError', () => {
  it('keeps the class, the code, the schema names and the frames; drops params and values', () => {
    const cause = Object.assign(new Error(`invalid input syntax for type integer: "${SECRET}"`), {
      name: 'error',
      code: '22P02',
      detail: SECRET,
      table: 'people',
      constraint: 'people_handle_key',
      params: [SECRET],
    })
    const error = Object.assign(
      new Error(`Failed query: select $1::int4\nparams: ${SECRET}\n    at fake (${SECRET})`),
      { cause, query: 'select $1::int4', params: [SECRET] },
    )
    const sanitized = sanitizeError(error)
    expect(sanitized).toMatchObject({
      name: 'Error',
      message: 'Failed query: select $1::int4',
      cause: {
        name: 'DatabaseError',
        code: '22P02',
        table: 'people',
        constraint: 'people_handle_key',
        message: 'invalid input syntax for type integer: "…"',
      },
    })
    expect(sanitized.stack).toMatch(/^Error: Failed query: select \$1::int4\n {4}at /)
    expect(JSON.stringify(sanitized)).not.toContain(SECRET)
    expect(sanitizeError(sanitized)).toEqual(sanitized)
  })

  it('anything thrown that is not an error says only its type', () => {
    expect(sanitizeError(SECRET)).toEqual({ name: 'NonError', message: 'thrown string' })
  })
})

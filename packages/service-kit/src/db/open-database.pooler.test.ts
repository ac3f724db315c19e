import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eq, sql } from 'drizzle-orm'
import { integer, pgTable, text } from 'drizzle-orm/pg-core'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runExclusive } from './advisory-lock.ts'
import { type Database, openDatabase, type PoolMode } from './open-database.ts'
import { preparedOnce } from './prepared-once.ts'
import { rowsOf } from './rows-of.ts'
import { createTestDatabase, throughPooler } from './test-database.ts'

// PgBouncer in transaction mode in front of TEST_DATABASE_URL's server
// (scripts/ci/start-pgbouncer.sh); without both, these tests skip.
const server = process.env.TEST_DATABASE_URL
const pooler = process.env.TEST_PGBOUNCER_URL

const items = pgTable('items', { id: integer('id').primaryKey(), note: text('note').notNull() })
const schema = { items }

const migrations = () => {
  const folder = mkdtempSync(join(tmpdir(), 'pooler-migrations-'))
  mkdirSync(join(folder, 'meta'))
  writeFileSync(
    join(folder, '0000_init.sql'),
    'CREATE TABLE "items" ("id" integer PRIMARY KEY, "note" text NOT NULL);',
  )
  writeFileSync(
    join(folder, 'meta', '_journal.json'),
    JSON.stringify({
      version: '7',
      dialect: 'postgresql',
      entries: [{ idx: 0, version: '7', when: 1, tag: '0000_init', breakpoints: true }],
    }),
  )
  return folder
}

const itemById = preparedOnce((db: Database<typeof schema>['db']) =>
  db
    .select()
    .from(items)
    .where(eq(items.id, sql.placeholder('id')))
    .prepare('pooler_item_by_id'),
)

describe.skipIf(!server || !pooler)('openDatabase behind PgBouncer in transaction mode', () => {
  const migrationsFolder = migrations()
  let database: { url: string; drop: () => Promise<void> }
  let pooled: string
  const opened: Array<Database<typeof schema>> = []
  const open = async (poolMode: PoolMode, options: { direct?: boolean; poolMax?: number } = {}) => {
    const db = await openDatabase({
      url: pooled,
      directUrl: options.direct === false ? undefined : database.url,
      poolMode,
      poolMax: options.poolMax ?? 10,
      schema,
      migrationsFolder,
    })
    opened.push(db)
    return db
  }
  const direct = async <value>(work: (client: pg.Client) => Promise<value>) => {
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    try {
      return await work(client)
    } finally {
      await client.end()
    }
  }

  beforeAll(async () => {
    // Empty: the services' own migration, through the direct URL, builds the schema.
    database = await createTestDatabase(server!)
    pooled = throughPooler(pooler!, database.url)
  })
  afterAll(async () => {
    await Promise.all(opened.map((db) => db.close()))
    await database?.drop()
  })

  it('two replicas starting together migrate once, through the direct URL', async () => {
    await Promise.all([open('transaction'), open('transaction')])
    const applied = await direct((client) =>
      client.query('SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations'),
    )
    expect(applied.rows[0].n).toBe(1)
  })

  it('the prepared path fails behind it, and the error says what to set', async () => {
    // A database of its own: the statements it leaves on the pooler's server connections stay there.
    const own = await createTestDatabase(server!)
    const db = await openDatabase({
      url: throughPooler(pooler!, own.url),
      directUrl: own.url,
      poolMax: 2,
      schema,
      migrationsFolder,
    })
    const pool = db.client as pg.Pool
    // One client prepares the statement on the pooler's only server connection...
    const first = await pool.connect()
    try {
      await first.query('SELECT $1::int AS n', [1])
      // ...which the pooler then hands to the pool's second client, preparing the same name.
      const failure = await pool.query('SELECT $1::int AS n', [2]).catch((error: unknown) => error)
      expect(failure).toMatchObject({
        code: expect.stringMatching(/^(42P05|26000)$/),
        message: expect.stringContaining(
          'set DATABASE_POOL_MODE=transaction and DATABASE_DIRECT_URL',
        ),
      })
    } finally {
      first.release()
      await db.close()
      await own.drop()
    }
  })

  it('transaction mode names no statement: raw, drizzle-prepared and transactional queries under load', async () => {
    const db = await open('transaction')
    await Promise.all(
      Array.from({ length: 40 }, (_, id) =>
        db.db.transaction(async (tx) => {
          await tx.execute(sql`SET LOCAL statement_timeout = '10s'`)
          await tx.execute(sql`SELECT pg_advisory_xact_lock(${id})`)
          await tx.insert(items).values({ id, note: `item ${id}` })
        }),
      ),
    )
    const answers = await Promise.all(
      Array.from({ length: 300 }, async (_, index) => {
        const id = index % 40
        if (index % 2 === 0) {
          const [row] = await itemById(db.db).execute({ id })
          return row?.note
        }
        const { rows } = await db.client.query('SELECT note FROM items WHERE id = $1', [id])
        return (rows[0] as { note: string }).note
      }),
    )
    expect(answers).toEqual(Array.from({ length: 300 }, (_, index) => `item ${index % 40}`))
    // Nothing was prepared on the server connections: every statement went unnamed.
    const prepared = await Promise.all(
      Array.from({ length: 10 }, () =>
        db.client.query('SELECT count(*)::int AS n FROM pg_prepared_statements'),
      ),
    )
    expect(prepared.map(({ rows }) => rows[0])).toEqual(Array(10).fill({ n: 0 }))
  })

  it('withLock keeps its session lock on the direct URL: one replica at a time', async () => {
    const [a, b] = [await open('transaction'), await open('transaction')]
    const KEY = 7_246_990
    let release!: () => void
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    const first = a.withLock(KEY, async () => {
      // The work meanwhile uses the pooled connections, many transactions long.
      for (let round = 0; round < 20; round++) await a.client.query('SELECT $1::int', [round])
      await held
      return 'a'
    })
    const holders = () =>
      direct(async (client) => {
        const { rows } = await client.query(
          `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND granted`,
          [KEY],
        )
        return rows[0].n as number
      })
    while ((await holders()) === 0) await new Promise((done) => setTimeout(done, 20))
    expect(await b.withLock(KEY, async () => 'b')).toEqual({ ran: false })
    const waiting = b.withLock(KEY, async () => 'b waited', { wait: true })
    release()
    expect(await first).toEqual({ ran: true, value: 'a' })
    expect(await waiting).toEqual({ ran: true, value: 'b waited' })
    expect(await holders()).toBe(0)
  })

  it('runExclusive (a transaction-level lock) works through the pooler', async () => {
    const [a, b] = [await open('transaction'), await open('transaction')]
    let release!: () => void
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    let entered!: () => void
    const inside = new Promise<void>((resolve) => {
      entered = resolve
    })
    const first = runExclusive(a.db, 7_246_991, async (tx) => {
      entered()
      await held
      return rowsOf<{ n: number }>(await tx.execute(sql`SELECT 1 AS n`))[0]?.n
    })
    await inside
    expect(await runExclusive(b.db, 7_246_991, async () => 'b')).toEqual({ ran: false })
    release()
    expect(await first).toEqual({ ran: true, value: 1 })
    expect(await runExclusive(b.db, 7_246_991, async () => 'b')).toEqual({ ran: true, value: 'b' })
  })

  it('refuses transaction mode without a direct URL', async () => {
    await expect(open('transaction', { direct: false })).rejects.toThrow(/needs directUrl/)
  })
})

import { mkdirSync } from 'node:fs'
import { PGlite } from '@electric-sql/pglite'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import pg from 'pg'
import { cloneMigratedPglite } from './migrated-pglite.ts'
import { PreparingClient, UnpreparedClient } from './pool-clients.ts'
import { PreparingPglite } from './preparing-pglite.ts'
import { createTransactionGuard, type TransactionGuard } from './transaction-guard.ts'

/** What raw-SQL helpers (the receipt store, benches) need: `pg`'s Pool and PGlite both fit. */
export type SqlClient = {
  query: (text: string, params?: unknown[]) => Promise<{ rows: unknown[] }>
}

export type Database<schema extends Record<string, unknown>> = {
  kind: 'pglite' | 'postgres'
  /** Drizzle over either driver; both speak the PostgreSQL dialect. */
  db: PgDatabase<PgQueryResultHKT, schema>
  client: SqlClient
  /** `select 1`: for health checks. */
  probe: () => Promise<void>
  /**
   * Holds a session-level advisory lock for long singleton work (the match
   * beat) without holding a transaction open: on PostgreSQL one pooled
   * connection keeps the lock while `work` uses the pool (behind a
   * transaction pooler, a connection of the direct URL); on PGlite (one
   * process) an in-process lock does the same. Without `wait`, answers
   * `{ ran: false }` at once when another holder has it.
   */
  withLock: <value>(
    key: number,
    work: () => Promise<value>,
    options?: { wait?: boolean },
  ) => Promise<{ ran: true; value: value } | { ran: false }>
  close: () => Promise<void>
}

/**
 * How `url` pools its server connections. `session`: each client keeps its
 * server connection (a direct URL, or a pooler in session mode).
 * `transaction`: a pooler (PgBouncer, Supavisor, RDS Proxy) hands a server
 * connection to another client after every transaction, so nothing may
 * outlive one there: no named prepared statements, no session locks.
 */
export type PoolMode = 'session' | 'transaction'

export type OpenDatabaseParameters<schema extends Record<string, unknown>> = {
  /** A PostgreSQL URL; without one the embedded PGlite is used. */
  url?: string | undefined
  /** How `url` is pooled; default `session`. */
  poolMode?: PoolMode | undefined
  /**
   * A direct, session-capable URL of the same database: migrations run
   * through it when given, and with `poolMode: 'transaction'` (where it is
   * required) so do `withLock`'s session locks.
   */
  directUrl?: string | undefined
  /** PGlite's data directory; `memory://` keeps nothing. */
  dataDir?: string
  poolMax?: number
  schema: schema
  /** drizzle-kit's output folder; applied before the database is handed out. */
  migrationsFolder: string
  /**
   * Refuse (QueryOutsideTransactionError) a query sent on the database, not
   * on the transaction, from inside an open transaction's work: on PGlite it
   * would wait for the transaction that waits for it, and hang the process.
   * Default: on in tests (vitest, or NODE_ENV=test).
   */
  guardTransactions?: boolean
  /**
   * An in-memory PGlite starts as a clone of one migrated per process
   * (`cloneMigratedPglite`) instead of empty. Default: on in tests.
   */
  cloneTemplate?: boolean
}

const inTests = () => process.env.VITEST !== undefined || process.env.NODE_ENV === 'test'

/** drizzle's `db.transaction`, its work run inside the guard. */
const guardDrizzleTransactions = (db: { transaction: unknown }, guard: TransactionGuard) => {
  const transaction = (db.transaction as (...args: unknown[]) => Promise<unknown>).bind(db)
  db.transaction = (work: (tx: unknown) => Promise<unknown>, config?: unknown) => {
    try {
      guard.assertOutside('BEGIN (a transaction inside an open one)')
    } catch (error) {
      return Promise.reject(error)
    }
    return transaction((tx: unknown) => guard.within(() => work(tx)), config)
  }
}

/** The pool's own queries (those outside any transaction) checked by the guard first. */
const guardPoolQueries = (pool: pg.Pool, guard: TransactionGuard) => {
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown
  // biome-ignore lint/suspicious/noExplicitAny: node-postgres's query has many overloads; this forwards them all
  ;(pool as any).query = (...args: unknown[]) => {
    const [config] = args
    const text = typeof config === 'string' ? config : String((config as { text?: string })?.text)
    try {
      guard.assertOutside(text)
    } catch (error) {
      const callback = args.at(-1)
      if (typeof callback !== 'function') return Promise.reject(error)
      queueMicrotask(() => callback(error))
      return undefined
    }
    return query(...args)
  }
}

// Any fixed number: every replica of every service takes the same lock, so
// two replicas starting together never run one migration twice.
const MIGRATION_LOCK = 7_246_001

// `withLock` sessions on the direct URL behind a transaction pooler: one per
// lock a service can hold at once (the venue: reconciler, beat, retention,
// its match index's holder, which keeps its lock), and room, so a holder
// never waits for another's connection. Idle ones close after 10 s.
const LOCK_SESSIONS = 6

/**
 * Brings the schema up to date on one session (a session-level lock, and
 * DDL, which a transaction pooler may split across server connections).
 */
const migrateOnSession = async (url: string, migrationsFolder: string) => {
  const session = new pg.Client({ connectionString: url })
  await session.connect()
  try {
    await session.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK])
    await migratePg(drizzlePg(session), { migrationsFolder })
  } finally {
    await session.end()
  }
}

/**
 * Opens the service's database and brings its schema up to date: real
 * PostgreSQL when a URL is given (a pool; migrations under an advisory lock
 * so replicas can start together), else the embedded PGlite, the same SQL
 * dialect in one process. Behind a transaction pooler (`poolMode`), the
 * pool prepares nothing, and migrations and session locks go through
 * `directUrl`.
 */
export const openDatabase = async <schema extends Record<string, unknown>>({
  url,
  poolMode = 'session',
  directUrl,
  dataDir = 'memory://',
  poolMax = 20,
  schema,
  migrationsFolder,
  guardTransactions = inTests(),
  cloneTemplate = inTests(),
}: OpenDatabaseParameters<schema>): Promise<Database<schema>> => {
  const guard = guardTransactions ? createTransactionGuard() : undefined
  if (url) {
    const pooled = poolMode === 'transaction'
    if (pooled && !directUrl)
      throw new Error(
        'poolMode transaction needs directUrl (DATABASE_DIRECT_URL): migrations and session locks cannot run through a transaction pooler',
      )
    await migrateOnSession(directUrl ?? url, migrationsFolder)
    const pool = new pg.Pool({
      connectionString: url,
      max: poolMax,
      Client: pooled ? UnpreparedClient : PreparingClient,
    })
    // An idle client losing its server must not crash the process; the next query reports it.
    pool.on('error', () => {})
    // Session locks need a session: behind a transaction pooler, on the direct URL.
    const lockPool =
      pooled && directUrl ? new pg.Pool({ connectionString: directUrl, max: LOCK_SESSIONS }) : pool
    if (lockPool !== pool) lockPool.on('error', () => {})
    const db = drizzlePg(pool, { schema })
    if (guard) {
      guardPoolQueries(pool, guard)
      guardDrizzleTransactions(db, guard)
    }
    const withLock: Database<schema>['withLock'] = async (key, work, { wait = false } = {}) => {
      const session = await lockPool.connect()
      try {
        if (wait) await session.query('SELECT pg_advisory_lock($1)', [key])
        else {
          const { rows } = await session.query('SELECT pg_try_advisory_lock($1) AS locked', [key])
          if (!rows[0]?.locked) return { ran: false }
        }
        try {
          return { ran: true, value: await work() }
        } finally {
          await session.query('SELECT pg_advisory_unlock($1)', [key])
        }
      } finally {
        session.release()
      }
    }
    return {
      kind: 'postgres',
      withLock,
      db: db as unknown as PgDatabase<PgQueryResultHKT, schema>,
      client: pool,
      probe: async () => {
        await pool.query('SELECT 1')
      },
      close: async () => {
        await pool.end()
        if (lockPool !== pool) await lockPool.end()
      },
    }
  }
  if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true })
  const pglite =
    cloneTemplate && dataDir.startsWith('memory://')
      ? await cloneMigratedPglite(migrationsFolder)
      : await PGlite.create(dataDir)
  const client = new PreparingPglite(pglite, { guard })
  const db = drizzlePglite({ client: client as unknown as PGlite, schema })
  await migratePglite(db, { migrationsFolder })
  const held = new Map<number, Promise<unknown>>()
  const withLock: Database<schema>['withLock'] = async (key, work, { wait = false } = {}) => {
    while (held.has(key)) {
      if (!wait) return { ran: false }
      await held.get(key)!.catch(() => {})
    }
    const running = work()
    held.set(key, running)
    try {
      return { ran: true, value: await running }
    } finally {
      held.delete(key)
    }
  }
  return {
    kind: 'pglite',
    withLock,
    db: db as unknown as PgDatabase<PgQueryResultHKT, schema>,
    client,
    probe: async () => {
      await pglite.query('SELECT 1')
    },
    close: () => pglite.close(),
  }
}

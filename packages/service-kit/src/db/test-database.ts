import { createHash, randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { drizzle } from 'drizzle-orm/node-postgres'
import { migrate } from 'drizzle-orm/node-postgres/migrator'
import pg from 'pg'

export type TestDatabaseOptions = {
  /**
   * The service's drizzle-kit folder: the database starts as a copy of a
   * template migrated once per server and set of migrations (about 0.5 s
   * instead of 1.1 s to create and migrate the venue's, 2026-11-26), and
   * the service's own migration at start finds nothing left to do.
   */
  migrationsFolder?: string
}

// Any fixed number: test workers of every service creating templates take turns.
const TEMPLATE_LOCK = 7_246_002

const withAdmin = async <value>(serverUrl: string, work: (admin: pg.Client) => Promise<value>) => {
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  try {
    return await work(admin)
  } finally {
    await admin.end()
  }
}

const databaseUrl = (serverUrl: string, name: string) => {
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return url.href
}

/** The template's name changes with the migrations, so an edited migration never meets a stale template. */
const templateName = (migrationsFolder: string) => {
  const hash = createHash('sha256')
  const files = readdirSync(migrationsFolder, { recursive: true, encoding: 'utf8' }).sort()
  for (const file of files) {
    if (!file.endsWith('.sql') && !file.endsWith('.json')) continue
    hash.update(file).update(readFileSync(join(migrationsFolder, file)))
  }
  return `tpl_${hash.digest('hex').slice(0, 16)}`
}

const ensureTemplate = (serverUrl: string, migrationsFolder: string) =>
  withAdmin(serverUrl, async (admin) => {
    const name = templateName(migrationsFolder)
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK])
    try {
      const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])
      if (rowCount) return name
      // Built under another name and renamed when complete: a crash mid-way leaves no half template.
      const building = `${name}_building`
      await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`)
      await admin.query(`CREATE DATABASE ${building}`)
      const client = new pg.Client({ connectionString: databaseUrl(serverUrl, building) })
      await client.connect()
      try {
        await migrate(drizzle(client), { migrationsFolder })
      } finally {
        await client.end()
      }
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`)
      return name
    } finally {
      await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK])
    }
  })

/**
 * A fresh database on the PostgreSQL server at `serverUrl` (tests:
 * TEST_DATABASE_URL), so test files never see each other's rows: empty, or
 * already migrated when `migrationsFolder` is given. `drop` removes it,
 * closing any connection still open.
 */
export const createTestDatabase = async (
  serverUrl: string,
  { migrationsFolder }: TestDatabaseOptions = {},
) => {
  const name = `t_${randomBytes(6).toString('hex')}`
  const template = migrationsFolder ? await ensureTemplate(serverUrl, migrationsFolder) : undefined
  await withAdmin(serverUrl, (admin) =>
    admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`),
  )
  return {
    url: databaseUrl(serverUrl, name),
    drop: () =>
      withAdmin(serverUrl, async (admin) => {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      }),
  }
}

/**
 * `databaseUrl` reached through the pooler at `poolerUrl` (tests:
 * TEST_PGBOUNCER_URL, PgBouncer in transaction mode passing every database
 * name through, `scripts/ci/start-pgbouncer.sh`): the pooler's host and
 * port, the database's name, user and password.
 */
export const throughPooler = (poolerUrl: string, databaseUrl: string) => {
  const pooler = new URL(poolerUrl)
  const url = new URL(databaseUrl)
  url.hostname = pooler.hostname
  url.port = pooler.port
  return url.href
}

export type TestBackend = {
  name: 'PGlite' | 'PostgreSQL'
  /** A database to run against: PGlite in memory (no URL), or a fresh PostgreSQL database. */
  open: () => Promise<{ url: string | undefined; drop: () => Promise<void> }>
}

/**
 * The backends a service's tests run on, for `describe.each`: the embedded
 * PGlite always, and real PostgreSQL when `serverUrl` (TEST_DATABASE_URL) is set.
 */
export const testBackends = (
  serverUrl: string | undefined,
  options: TestDatabaseOptions = {},
): TestBackend[] => [
  { name: 'PGlite', open: async () => ({ url: undefined, drop: async () => {} }) },
  ...(serverUrl
    ? [{ name: 'PostgreSQL' as const, open: () => createTestDatabase(serverUrl, options) }]
    : []),
]

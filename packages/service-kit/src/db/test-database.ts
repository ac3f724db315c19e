import { randomBytes } from 'node:crypto'
import pg from 'pg'

/**
 * A fresh, empty database on the PostgreSQL server at `serverUrl` (tests:
 * TEST_DATABASE_URL), so test files never see each other's rows. `drop`
 * removes it, closing any connection still open.
 */
export const createTestDatabase = async (serverUrl: string) => {
  const name = `t_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return {
    url: url.href,
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl })
      await client.connect()
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await client.end()
    },
  }
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
export const testBackends = (serverUrl: string | undefined): TestBackend[] => [
  { name: 'PGlite', open: async () => ({ url: undefined, drop: async () => {} }) },
  ...(serverUrl
    ? [{ name: 'PostgreSQL' as const, open: () => createTestDatabase(serverUrl) }]
    : []),
]

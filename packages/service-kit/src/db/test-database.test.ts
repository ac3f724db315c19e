import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { drizzle } from 'drizzle-orm/node-postgres'
import { migrate } from 'drizzle-orm/node-postgres/migrator'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { createTestDatabase } from './test-database.ts'

const server = process.env.TEST_DATABASE_URL

/** A drizzle-kit folder with one migration creating `table`. */
const migrationsWith = (table: string) => {
  const folder = mkdtempSync(join(tmpdir(), 'migrations-'))
  mkdirSync(join(folder, 'meta'))
  writeFileSync(
    join(folder, '0000_init.sql'),
    `CREATE TABLE "${table}" ("id" integer PRIMARY KEY);`,
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

const withClient = async <value>(url: string, work: (client: pg.Client) => Promise<value>) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

const tables = (url: string) =>
  withClient(url, async (client) => {
    const { rows } = await client.query(
      `SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`,
    )
    return rows.map((row) => row.tablename as string)
  })

describe.skipIf(!server)('test databases on PostgreSQL', () => {
  it('without migrations: an empty database, gone after drop', async () => {
    const database = await createTestDatabase(server!)
    expect(await tables(database.url)).toEqual([])
    await database.drop()
    await expect(tables(database.url)).rejects.toThrow(/does not exist/)
  })

  it('with migrations: each database a migrated copy of one template, which the service migrates again without error', async () => {
    // A fixed name: the template is built once per server, not once per run.
    const table = 'items'
    const folder = migrationsWith(table)
    const [one, two] = await Promise.all([
      createTestDatabase(server!, { migrationsFolder: folder }),
      createTestDatabase(server!, { migrationsFolder: folder }),
    ])
    expect(await tables(one!.url)).toEqual([table])
    expect(await tables(two!.url)).toEqual([table])
    // The service's own migration at start finds the journal up to date.
    await withClient(one!.url, (client) => migrate(drizzle(client), { migrationsFolder: folder }))
    await withClient(one!.url, (client) => client.query(`INSERT INTO ${table} VALUES (1)`))
    // A copy has its own rows.
    const three = await createTestDatabase(server!, { migrationsFolder: folder })
    const { rows } = await withClient(three.url, (client) =>
      client.query(`SELECT count(*)::int AS n FROM ${table}`),
    )
    expect(rows).toEqual([{ n: 0 }])
    for (const database of [one!, two!, three]) await database.drop()
  })

  it('a changed migration gets a new template', async () => {
    const first = await createTestDatabase(server!, { migrationsFolder: migrationsWith('alpha') })
    const second = await createTestDatabase(server!, { migrationsFolder: migrationsWith('beta') })
    expect(await tables(first.url)).toEqual(['alpha'])
    expect(await tables(second.url)).toEqual(['beta'])
    await first.drop()
    await second.drop()
  })
})

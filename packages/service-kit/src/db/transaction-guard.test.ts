import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type Database, openDatabase } from './open-database.ts'
import { testBackends } from './test-database.ts'
import { QueryOutsideTransactionError } from './transaction-guard.ts'

// No tables: the guard is about where a query goes, not what it reads.
const migrationsFolder = mkdtempSync(join(tmpdir(), 'guard-migrations-'))
mkdirSync(join(migrationsFolder, 'meta'))
writeFileSync(
  join(migrationsFolder, 'meta', '_journal.json'),
  JSON.stringify({ version: '7', dialect: 'postgresql', entries: [] }),
)

/** The guard's error, as thrown or as the cause drizzle wraps it in. */
const refused = (error: unknown) =>
  error instanceof QueryOutsideTransactionError ||
  (error as { cause?: unknown })?.cause instanceof QueryOutsideTransactionError

describe.each(testBackends(process.env.TEST_DATABASE_URL))(
  'the transaction guard on $name',
  ({ open }) => {
    let database: Database<Record<string, never>>
    let drop: () => Promise<void>
    beforeAll(async () => {
      const opened = await open()
      drop = opened.drop
      database = await openDatabase({ url: opened.url, schema: {}, migrationsFolder })
    })
    afterAll(async () => {
      await database?.close()
      await drop?.()
    })

    test('a query on the database from inside an open transaction throws instead of hanging', async () => {
      const { db, client } = database
      const inside = db.transaction(async (tx) => {
        await tx.execute(sql`select 1`)
        await db.execute(sql`select ${'outside'}::text`)
      })
      await expect(inside).rejects.toSatisfy(refused)
      await expect(
        db.transaction(async () => {
          await client.query('select $1::int', [1])
        }),
      ).rejects.toThrow(/outside the open transaction it was issued from/)
      await expect(
        db.transaction(async () => {
          await db.transaction(async (inner) => inner.execute(sql`select 1`))
        }),
      ).rejects.toThrow(QueryOutsideTransactionError)
      // The database still answers.
      expect((await client.query('select 2 as n')).rows).toEqual([{ n: 2 }])
    })

    test('other work waits for the transaction as before, and work it left running is free once it ends', async () => {
      const { db, client } = database
      let release!: () => void
      const held = new Promise<void>((resolve) => {
        release = resolve
      })
      let later: Promise<unknown> | undefined
      const transaction = db.transaction(async (tx) => {
        await tx.execute(sql`select 1`)
        later = held
          .then(() => new Promise((resolve) => setTimeout(resolve, 10)))
          .then(() => client.query('select $1::int as n', [3]))
        await held
      })
      const outside = client.query('select $1::int as n', [4])
      release()
      await transaction
      expect((await outside).rows).toEqual([{ n: 4 }])
      expect(((await later) as { rows: unknown[] }).rows).toEqual([{ n: 3 }])
    })
  },
)

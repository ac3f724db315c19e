import { PGlite, types } from '@electric-sql/pglite'
import { eq, sql } from 'drizzle-orm'
import { integer, jsonb, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core'
import { drizzle } from 'drizzle-orm/pglite'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { PreparingPglite } from './preparing-pglite.ts'

const items = pgTable('items', {
  id: serial('id').primaryKey(),
  name: text('name').notNull().unique(),
  count: integer('count').notNull().default(0),
  tags: text('tags').array(),
  detail: jsonb('detail'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
})

// drizzle's own per-query parsers: timestamps, dates and intervals as text.
const asText = (value: string) => value
const drizzleParsers = {
  [types.TIMESTAMP]: asText,
  [types.TIMESTAMPTZ]: asText,
  [types.INTERVAL]: asText,
  [types.DATE]: asText,
}

// Each test gets a clone of one seeded database: starting PGlite costs
// seconds, a clone a fraction of that.
let seeded: PGlite
let pglite: PGlite
let prepared: PreparingPglite
beforeAll(async () => {
  seeded = await PGlite.create()
  await seeded.exec(`
    CREATE TABLE items (
      id serial PRIMARY KEY, name text NOT NULL UNIQUE, count integer NOT NULL DEFAULT 0,
      tags text[], detail jsonb, created_at timestamptz NOT NULL DEFAULT now()
    );
    INSERT INTO items (name, tags, detail) VALUES ('one', '{a,b}', '{"k": 1}'), ('two', NULL, NULL);
  `)
})
afterAll(async () => {
  await seeded.close()
})
beforeEach(async () => {
  pglite = (await seeded.clone()) as PGlite
  prepared = new PreparingPglite(pglite)
})
afterEach(async () => {
  await pglite.close()
})

const SELECT = 'SELECT id, name, count, tags, detail, created_at FROM items WHERE name = $1'

describe('PreparingPglite', () => {
  test('answers as PGlite.query does, in either row mode and with per-query parsers', async () => {
    for (const options of [
      undefined,
      { rowMode: 'array' as const },
      { rowMode: 'array' as const, parsers: drizzleParsers },
    ]) {
      for (const name of ['one', 'two', 'none']) {
        const expected = await pglite.query(SELECT, [name], options)
        expect(await prepared.query(SELECT, [name], options)).toEqual(expected)
        // The second call runs the prepared statement.
        expect(await prepared.query(SELECT, [name], options)).toEqual(expected)
      }
    }
    expect(prepared.preparedCount).toBe(1)
    const [withParsers] = (
      await prepared.query<unknown[]>(SELECT, ['one'], {
        rowMode: 'array',
        parsers: drizzleParsers,
      })
    ).rows
    expect(typeof withParsers![5]).toBe('string')
    const [plain] = (await prepared.query<{ created_at: unknown }>(SELECT, ['one'])).rows
    expect(plain!.created_at).toBeInstanceOf(Date)
  })

  test('serializes parameters by their declared types: json, arrays, numbers, null', async () => {
    const insert =
      'INSERT INTO items (name, count, tags, detail) VALUES ($1, $2, $3, $4) RETURNING id, count, tags, detail'
    const answer = await prepared.query<Record<string, unknown>>(insert, [
      'three',
      7,
      ['x', 'y, z'],
      { nested: [1, 'two'], quote: "it's" },
    ])
    expect(answer.rows[0]).toMatchObject({
      count: 7,
      tags: ['x', 'y, z'],
      detail: { nested: [1, 'two'], quote: "it's" },
    })
    expect(answer.affectedRows).toBe(1)
    const nulls = await prepared.query<Record<string, unknown>>(insert, ['four', 0, null, null])
    expect(nulls.rows[0]).toMatchObject({ tags: null, detail: null })
  })

  test('a failing statement throws the database error, and the statement still serves', async () => {
    const insert = 'INSERT INTO items (name) VALUES ($1)'
    await expect(prepared.query(insert, ['one'])).rejects.toMatchObject({ code: '23505' })
    await prepared.query(insert, ['five'])
    expect((await prepared.query(SELECT, ['five'])).rows).toHaveLength(1)
    // A statement that does not parse is not kept.
    await expect(prepared.query('SELEC $1', [1])).rejects.toMatchObject({ code: '42601' })
    expect(prepared.preparedCount).toBe(2)
  })

  test('a table changed under a prepared statement: the error is thrown once, then it is prepared again', async () => {
    const all = 'SELECT * FROM items WHERE id = $1'
    expect((await prepared.query(all, [1])).rows).toHaveLength(1)
    await pglite.exec('ALTER TABLE items ADD COLUMN extra text')
    await expect(prepared.query(all, [1])).rejects.toMatchObject({ code: '0A000' })
    const [row] = (await prepared.query<Record<string, unknown>>(all, [1])).rows
    expect(row).toHaveProperty('extra', null)
  })

  test('waits for an open transaction instead of running inside it', async () => {
    let release!: () => void
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    let updated!: () => void
    const inside = new Promise<void>((resolve) => {
      updated = resolve
    })
    const transaction = prepared.transaction(async (tx) => {
      await tx.query("UPDATE items SET count = 99 WHERE name = 'one'")
      updated()
      await held
      await tx.rollback()
    })
    await inside
    let answered = false
    const read = prepared.query<{ count: number }>(SELECT, ['one']).finally(() => {
      answered = true
    })
    try {
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(answered).toBe(false)
    } finally {
      release()
    }
    await transaction
    expect((await read).rows[0]!.count).toBe(0)
  })

  test('past its limit of statements, new ones run unprepared', async () => {
    const limited = new PreparingPglite(pglite, { maxStatements: 2 })
    for (const column of ['id', 'name', 'count', 'tags']) {
      const text = `SELECT ${column} FROM items WHERE name = $1`
      expect(await limited.query(text, ['one'])).toEqual(await pglite.query(text, ['one']))
    }
    expect(limited.preparedCount).toBe(2)
  })

  test('drizzle over it reads and writes as over PGlite', async () => {
    const db = drizzle({ client: prepared as unknown as PGlite })
    const [inserted] = await db
      .insert(items)
      .values({ name: 'six', tags: ['p'], detail: { a: 1 } })
      .returning()
    expect(inserted!.createdAt).toBeInstanceOf(Date)
    const [read] = await db.select().from(items).where(eq(items.name, 'six'))
    expect(read).toEqual(inserted)
    await db.transaction(async (tx) => {
      await tx
        .update(items)
        .set({ count: sql`${items.count} + 1` })
        .where(eq(items.id, inserted!.id))
    })
    const [after] = await db
      .select({ count: items.count })
      .from(items)
      .where(eq(items.id, inserted!.id))
    expect(after!.count).toBe(1)
  })
})

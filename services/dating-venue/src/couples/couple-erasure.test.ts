import { testBackends } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { personasErasure } from '../admission/persona-state.ts'
import { openVenueDatabase, type VenueDatabase } from '../db/open.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'
import { couplesErasure } from './couple-state.ts'

// The writers' parts of an erasure, each run alone in one transaction, as erase-owner.ts runs them.
describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  "the personas' and couples' parts of an erasure on $name",
  ({ open }) => {
    let database: VenueDatabase
    let drop: () => Promise<void>
    beforeAll(async () => {
      const opened = await open()
      drop = opened.drop
      database = await openVenueDatabase({ url: opened.url, dataDir: 'memory://' })
    }, 60_000)
    afterAll(async () => {
      await database?.close()
      await drop?.()
    })
    const sql = async <row = Record<string, unknown>>(text: string, params: unknown[] = []) =>
      (await database.client.query(text, params)).rows as row[]
    const owner = async (wallet: string) =>
      (
        await sql<{ id: number }>(
          `INSERT INTO owners (wallet, credential_hash) VALUES ($1, 'x') RETURNING id`,
          [wallet],
        )
      )[0]!.id
    const persona = async (handle: string, ownerId: number, status: string) =>
      (
        await sql<{ id: number }>(
          `INSERT INTO personas (handle, model, heart, owner_id, status) VALUES ($1, 'm', '{}', $2, $3) RETURNING id`,
          [handle, ownerId, status],
        )
      )[0]!.id
    const couple = async (a: number, b: number, state: string) =>
      (
        await sql<{ id: number }>(
          `INSERT INTO couples (cycle_id, persona_a, persona_b, state) VALUES ('c', $1, $2, $3) RETURNING id`,
          [Math.min(a, b), Math.max(a, b), state],
        )
      )[0]!.id

    it('the couples of the erased personas are locked and removed with their turns; only a partner of another owner in a live couple is told', async () => {
      const mine = await owner('0xaaa1')
      const theirs = await owner('0xbbb1')
      const [m1, m2] = [
        await persona('mine-1', mine, 'admitted'),
        await persona('mine-2', mine, 'pending'),
      ]
      const [t1, t2] = [
        await persona('theirs-1', theirs, 'admitted'),
        await persona('theirs-2', theirs, 'admitted'),
      ]
      const withOther = await couple(m1, t1, 'courting')
      const withSelf = await couple(m1, m2, 'committed')
      const ended = await couple(m2, t2, 'withdrawn')
      const others = await couple(t1, t2, 'courting')
      await sql(
        `INSERT INTO turns (couple_id, persona_id, author, body, status) VALUES ($1, $2, 'a', 'hi', 'published'), ($3, $4, 'b', 'yo', 'published')`,
        [withOther, m1, others, t1],
      )

      const locked = await database.db.transaction((tx) => couplesErasure.lock(tx, [m1, m2]))
      expect([...locked.coupleIds].sort((x, y) => x - y)).toEqual([withOther, withSelf, ended])
      expect(locked.partners).toEqual([{ coupleId: withOther, personaId: t1, handle: 'theirs-1' }])

      await database.db.transaction((tx) => couplesErasure.remove(tx, locked.coupleIds))
      expect(await sql(`SELECT id FROM couples ORDER BY id`)).toEqual([{ id: others }])
      expect(await sql(`SELECT couple_id FROM turns`)).toEqual([{ couple_id: others }])
    })

    it("the owner's personas are locked, admitted ones give their seat back, then the rows go", async () => {
      const mine = await owner('0xaaa2')
      const admitted = await persona('seated', mine, 'admitted')
      const pending = await persona('waiting', mine, 'pending')
      const theirs = await persona('stays', await owner('0xbbb2'), 'admitted')
      await sql(`UPDATE capacity SET used = 5 WHERE id = 1`)

      const locked = await database.db.transaction((tx) => personasErasure.lock(tx, mine))
      expect([...locked].sort((x, y) => x.id - y.id)).toEqual([
        { id: admitted, handle: 'seated', status: 'admitted' },
        { id: pending, handle: 'waiting', status: 'pending' },
      ])
      await database.db.transaction(async (tx) => {
        await personasErasure.releaseSeats(tx, locked)
        await personasErasure.remove(tx, [admitted, pending])
      })
      // One seat back: the pending persona held none.
      expect(await sql(`SELECT used FROM capacity WHERE id = 1`)).toEqual([{ used: 4 }])
      expect(
        await sql(`SELECT id FROM personas WHERE id = ANY($1)`, [[admitted, pending, theirs]]),
      ).toEqual([{ id: theirs }])
    })
  },
)

import { testBackends } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openVenueDatabase, type VenueDatabase } from '../db/open.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'
import { ERASURE_PARTS } from './erase-owner.ts'
import { uncoveredTables } from './testing/uncovered-tables.ts'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'erasure covers the schema on $name',
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
    const query = async <row>(text: string) => (await database.client.query(text)).rows as row[]

    it('every table of the migrated schema with an owner, persona or wallet column is erased by a writer or by cascade', async () => {
      const found = await uncoveredTables(query, ERASURE_PARTS)
      expect(found.uncovered).toEqual([])
      expect(found.unknown).toEqual([])
      // The scan reads the real schema: these hold someone and are covered, some by cascade only.
      expect(found.holding).toEqual(
        expect.arrayContaining([
          'owners',
          'personas',
          'couples',
          'orders',
          'payment_ledger',
          'chat_messages',
          'persona_vectors',
          'turns',
          'identity_sessions',
          'invites',
          'intro_consents',
          'reveal_consents',
          'courtship_seats',
        ]),
      )
    })

    it('a new table holding an owner fails the check unless a part declares it or a cascade removes its rows', async () => {
      await query(`CREATE TABLE erasure_probe (id int, owner_id int)`)
      await query(
        `CREATE TABLE erasure_probe_cascaded (persona_id int REFERENCES personas (id) ON DELETE CASCADE)`,
      )
      await query(`CREATE TABLE erasure_probe_nulled (
        wallet text, owner_id int REFERENCES owners (id) ON DELETE SET NULL)`)
      try {
        expect((await uncoveredTables(query, ERASURE_PARTS)).uncovered).toEqual([
          'erasure_probe (owner_id)',
          'erasure_probe_nulled (wallet, owner_id)',
        ])
        const declared = [
          ...ERASURE_PARTS,
          {
            by: 'a probe',
            erases: { erasure_probe: 'deleted', erasure_probe_nulled: 'anonymized' } as const,
          },
        ]
        expect(await uncoveredTables(query, declared)).toMatchObject({ uncovered: [], unknown: [] })
        expect(
          (
            await uncoveredTables(query, [
              ...ERASURE_PARTS,
              { by: 'a stale part', erases: { erasure_gone: 'deleted' } },
            ])
          ).unknown,
        ).toEqual(['erasure_gone (a stale part)'])
      } finally {
        await query(`DROP TABLE erasure_probe, erasure_probe_cascaded, erasure_probe_nulled`)
      }
    })
  },
)

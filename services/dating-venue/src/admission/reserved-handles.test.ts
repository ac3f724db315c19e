import { postJson } from '@agents/service-kit'
import { testBackends } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { HEART } from '../test-helpers.ts'
import { startTestVenue, TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'
import { ORDINARY_HANDLES, RESERVED_LOOK_ALIKES } from './reserved-handle-fixtures.ts'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'reserved handles on $name',
  ({ open }) => {
    let venue: Venue
    let drop: () => Promise<void>
    beforeAll(async () => {
      const database = await open()
      drop = database.drop
      venue = await startTestVenue({ databaseUrl: database.url })
    })
    afterAll(async () => {
      await venue?.close()
      await drop?.()
    })
    const enter = (handle: string) =>
      postJson(`${venue.url}/api/personas`, {
        handle,
        model: 'claude',
        persona_age: '18+',
        heart: HEART,
      })
    const personaCount = async () =>
      (
        (await venue.deps.database.client.query('SELECT count(*)::int AS n FROM personas', []))
          .rows[0] as { n: number }
      ).n

    it('refuses the venue’s own names and every look-alike with a 400 naming the handle, writing nothing', async () => {
      const before = await personaCount()
      for (const handle of RESERVED_LOOK_ALIKES) {
        const answer = await enter(handle)
        expect(answer.status, handle).toBe(400)
        expect(answer.json.error).toBe('invalid persona')
        expect(answer.json.issues, handle).toContainEqual(
          expect.objectContaining({ path: ['handle'], message: 'handle reserved for the venue' }),
        )
      }
      expect(await personaCount()).toBe(before)
    })

    it('admits ordinary handles, including ones that share words or letters with a reserved name', async () => {
      for (const handle of ORDINARY_HANDLES) {
        const answer = await enter(handle)
        expect(answer.json, handle).toMatchObject({ admitted: true, reason: 'admitted' })
        expect(answer.status).toBe(200)
      }
    })

    it('documents the rule on the handle in /openapi.json', async () => {
      const document = await (await fetch(`${venue.url}/openapi.json`)).json()
      expect(JSON.stringify(document.components.schemas.Persona.properties.handle)).toContain(
        'matchmaker, venue, operator, admin, system',
      )
    })
  },
)

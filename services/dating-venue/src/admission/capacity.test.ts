import { testBackends } from '@agents/service-kit/db'
import { describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { admitPersona } from '../test-helpers.ts'
import { useTestVenue } from '../testing/venue-fixtures.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'capacity on $name',
  ({ open }) => {
    let venue: Venue
    const { admin } = useTestVenue(open, (started) => {
      venue = started
    })

    describe('admission', () => {
      it('when full: pending with capReached, admitted later in arrival order', async () => {
        const { rows } = await venue.deps.database.client.query('SELECT used FROM capacity')
        const used = (rows[0] as { used: number }).used
        expect((await admin('cap', used + 1)).status).toBe(200)
        expect((await admitPersona(venue)).answer.status).toBe(200)
        const first = (await admitPersona(venue)).answer
        const second = (await admitPersona(venue)).answer
        for (const answer of [first, second])
          expect(answer).toMatchObject({
            status: 422,
            json: { admitted: false, reason: 'cap reached', capReached: true },
          })
        await admin('cap', used + 2)
        const { admitPending } = await import('./admission.ts')
        expect(await admitPending(venue.deps)).toEqual([first.json.personaId])
        await admin('cap', 100_000)
        expect(await admitPending(venue.deps)).toEqual([second.json.personaId])
      })
    })
  },
)

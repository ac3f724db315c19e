import { postJson } from '@agents/service-kit'
import { testBackends } from '@agents/service-kit/db'
import { describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { useTestVenue } from '../testing/venue-fixtures.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'the venue core on $name',
  ({ open }) => {
    let venue: Venue
    const { admin } = useTestVenue(open, (started) => {
      venue = started
    })

    describe('operator console', () => {
      it('needs the operator token; only known keys', async () => {
        expect(
          (await postJson(`${venue.url}/admin/actions/settings`, { key: 'cap', value: 5 })).status,
        ).toBe(401)
        expect(
          (
            await postJson(
              `${venue.url}/admin/actions/settings`,
              { key: 'cap', value: 5 },
              { authorization: 'Bearer wrong' },
            )
          ).status,
        ).toBe(403)
        expect((await admin('colour', 'red')).json.error).toBe('key not allowed')
        expect((await admin('cap', '')).json.error).toBe('value required')
      })
    })
  },
)

import { testBackends } from '@agents/service-kit/db'
import { describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { useTestVenue } from '../testing/venue-fixtures.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'the venue core on $name',
  ({ open }) => {
    let _venue: Venue
    const { get } = useTestVenue(open, (started) => {
      _venue = started
    })

    describe('front door', () => {
      it('health, home page, documents, unknown rooms', async () => {
        expect((await get('/health')).json).toMatchObject({ ok: true, mode: 'day0' })
        const home = await get('/')
        expect(home.headers.get('content-type')).toMatch(/text\/html/)
        for (const text of [
          'seeking',
          'debriefs',
          'courtships',
          'notifications',
          'Adult-only',
          'Text-only',
          'contact',
        ])
          expect(home.text).toContain(text)
        for (const path of ['/skill', '/llms.txt', '/llms-full.txt']) {
          const doc = await get(path)
          expect(doc.status).toBe(200)
          expect(doc.headers.get('content-type')).toMatch(/markdown/)
        }
        expect((await get('/skill')).text).toContain('/api/intake/agent/verify')
        expect(await get('/nowhere')).toMatchObject({
          status: 404,
          json: { error: 'no such room' },
        })
      })
    })
  },
)

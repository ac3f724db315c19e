import { testBackends } from '@agents/service-kit/db'
import { describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { useTestVenue } from '../testing/venue-fixtures.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'
import { homePage } from './home-page.ts'

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
        // The house policy is Markdown: the documents carry it as it is, the home page as HTML.
        expect((await get('/skill')).text).toContain('`persona_age: "18+"`')
        expect(home.text).toContain('<code>persona_age: &#34;18+&#34;</code>')
        expect(home.text).not.toContain('`')
        expect(home.text).toContain('href="/chat"')
        expect(home.text).toMatch(/<dd id="stat-admitted">\d+<\/dd>/)
        expect(await get('/nowhere')).toMatchObject({
          status: 404,
          json: { error: 'no such room' },
        })
      })

      it('without the live figures the home page still says what the venue is and the way in', () => {
        const page = homePage('https://venue.example', 'n0nce', undefined)
        expect(page).toContain('The live figures cannot be read right now.')
        expect(page).toContain('href="/chat"')
        expect(page).not.toContain('stat-admitted')
      })
    })
  },
)

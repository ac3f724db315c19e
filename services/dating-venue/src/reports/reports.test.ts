import { postJson } from '@agents/service-kit'
import { testBackends } from '@agents/service-kit/db'
import { describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { admitPersona, createAgent } from '../test-helpers.ts'
import { useTestVenue } from '../testing/venue-fixtures.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'reports on $name',
  ({ open }) => {
    let venue: Venue
    const { get } = useTestVenue(open, (started) => {
      venue = started
    })

    describe('boards and reports', () => {
      it('reports: 200 ok; an item reported by enough distinct reporters is held', async () => {
        const { agent, answer } = await admitPersona(venue)
        const posted = await postJson(
          `${venue.url}/api/boards/seeking`,
          { personaId: answer.json.personaId, body: 'A perfectly fine post to be reported.' },
          { authorization: `Bearer ${agent.credential}` },
        )
        const report = (credential: string) =>
          postJson(
            `${venue.url}/api/report`,
            { targetType: 'post', targetId: posted.json.id, reason: 'spam' },
            { authorization: `Bearer ${credential}` },
          )
        const reporters = await Promise.all([
          createAgent(venue),
          createAgent(venue),
          createAgent(venue),
        ])
        expect((await report(reporters[0].credential)).json).toEqual({ ok: true })
        expect((await report(reporters[0].credential)).json).toEqual({ ok: true }) // the same reporter twice counts once
        expect((await report(reporters[1].credential)).status).toBe(200)
        const seeking = () =>
          get('/api/boards/seeking').then((r) => r.json.map((item: { body: string }) => item.body))
        expect(await seeking()).toContain('A perfectly fine post to be reported.')
        await report(reporters[2].credential)
        expect(await seeking()).not.toContain('A perfectly fine post to be reported.')
        for (const body of [
          { targetType: 'photo', targetId: 1 },
          { targetType: 'post', targetId: 0 },
          { targetType: 'post', targetId: 1, reason: 'r'.repeat(501) },
          { targetType: 'post', targetId: 99_999_999 },
        ]) {
          const bad = await postJson(`${venue.url}/api/report`, body)
          expect(bad).toMatchObject({ status: 400, json: { error: 'invalid report' } })
        }
      })
    })
  },
)

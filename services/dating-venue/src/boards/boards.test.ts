import { postJson } from '@agents/service-kit'
import { testBackends } from '@agents/service-kit/db'
import { describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { admitPersona, createAgent } from '../test-helpers.ts'
import { useTestVenue } from '../testing/venue-fixtures.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'boards on $name',
  ({ open }) => {
    let venue: Venue
    const { get, admin } = useTestVenue(open, (started) => {
      venue = started
    })

    describe('boards and reports', () => {
      it('agents post to seeking and debriefs through the safety check; only published items are served', async () => {
        const { agent, answer } = await admitPersona(venue)
        const personaId = answer.json.personaId
        const auth = { authorization: `Bearer ${agent.credential}` }
        const posted = await postJson(
          `${venue.url}/api/boards/seeking`,
          { personaId, body: 'Looking for a sailing partner.' },
          auth,
        )
        expect(posted).toMatchObject({ status: 201, json: { status: 'published' } })
        const blocked = await postJson(
          `${venue.url}/api/boards/seeking`,
          { personaId, body: 'Venmo me $50 and text 415 555 0199' },
          auth,
        )
        expect(blocked.status).toBe(422)
        expect(blocked.json.reason).toBeTruthy()
        expect(
          (await postJson(`${venue.url}/api/boards/notifications`, { personaId, body: 'hi' }, auth))
            .status,
        ).toBe(403)
        expect(
          (await postJson(`${venue.url}/api/boards/seeking`, { personaId, body: 'hi' })).status,
        ).toBe(401)
        const other = await createAgent(venue)
        expect(
          (
            await postJson(
              `${venue.url}/api/boards/seeking`,
              { personaId, body: 'hi' },
              { authorization: `Bearer ${other.credential}` },
            )
          ).status,
        ).toBe(403)
        const board = await get('/api/boards/seeking')
        expect(board.json.map((item: { body: string }) => item.body)).toContain(
          'Looking for a sailing partner.',
        )
        expect(board.json.some((item: { body: string }) => item.body.includes('Venmo'))).toBe(false)
        expect(Object.keys(board.json[0]).sort()).toEqual(['body', 'createdAt', 'handle'])
        expect((await get('/api/boards/no-such-board')).json).toEqual([])
        expect((await get('/api/boards/courtships')).json).toEqual([])
        const floor = await get('/api/floor')
        expect(
          floor.json.items.some(
            (item: { body: string }) => item.body === 'Looking for a sailing partner.',
          ),
        ).toBe(true)
      })

      it('boards read at most 50 items, newest first', async () => {
        const { agent, answer } = await admitPersona(venue)
        for (let n = 0; n < 55; n++)
          await postJson(
            `${venue.url}/api/boards/debriefs`,
            { personaId: answer.json.personaId, body: `debrief number ${n}` },
            { authorization: `Bearer ${agent.credential}` },
          )
        const board = await get('/api/boards/debriefs')
        expect(board.json).toHaveLength(50)
        expect(board.json[0].body).toBe('debrief number 54')
      })

      it('boards are closed until the venue opens; the floor stays readable', async () => {
        await admin('venue_open', 'false')
        const closed = await get('/api/boards/seeking')
        expect(closed.status).toBe(403)
        expect(closed.json.error).toMatch(/closed until the venue opens/)
        expect((await get('/api/floor')).status).toBe(200)
        await admin('venue_open', 'true')
        expect((await get('/api/boards/seeking')).status).toBe(200)
      })
    })
  },
)

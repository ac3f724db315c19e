import { postJson } from '@agents/service-kit'
import { testBackends } from '@agents/service-kit/db'
import { describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { admitPersona, createAgent, createOwner, HEART, uniqueHandle } from '../test-helpers.ts'
import { useTestVenue } from '../testing/venue-fixtures.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'admission gates on $name',
  ({ open }) => {
    let venue: Venue
    useTestVenue(open, (started) => {
      venue = started
    })

    describe('admission', () => {
      it('adult gate, then chaperone, then capacity', async () => {
        const agent = await createAgent(venue)
        const auth = { authorization: `Bearer ${agent.credential}` }
        const minor = await postJson(
          `${venue.url}/api/personas`,
          { handle: uniqueHandle(), model: 'm', persona_age: '17', heart: HEART },
          auth,
        )
        expect(minor).toMatchObject({
          status: 422,
          json: { admitted: false, reason: 'adult-only venue' },
        })
        const loose = await postJson(
          `${venue.url}/api/personas`,
          { handle: uniqueHandle(), model: 'm', persona_age: '18', heart: HEART },
          auth,
        )
        expect(loose.json.reason).toBe('adult-only venue')
        const unsafe = await postJson(
          `${venue.url}/api/personas`,
          {
            handle: uniqueHandle(),
            model: 'm',
            persona_age: '18+',
            heart: 'DM me on insta @sailor_jane, send nudes',
          },
          auth,
        )
        expect(unsafe.status).toBe(422)
        expect(unsafe.json.admitted).toBe(false)
        expect(unsafe.json.personaId).toBeGreaterThan(0)
        expect(unsafe.json.reason).not.toMatch(/sailor_jane/)
        const ok = await postJson(
          `${venue.url}/api/personas`,
          { handle: uniqueHandle(), model: 'm', persona_age: '18+', heart: HEART },
          auth,
        )
        expect(ok).toMatchObject({ status: 200, json: { admitted: true, reason: 'admitted' } })
      })

      it('validation names invalid persona; handles are unique', async () => {
        const handle = uniqueHandle('taken')
        expect((await admitPersona(venue)).answer.status).toBe(200)
        const agent = await createAgent(venue)
        const auth = { authorization: `Bearer ${agent.credential}` }
        expect(
          (
            await postJson(
              `${venue.url}/api/personas`,
              { handle, model: 'm', persona_age: '18+', heart: HEART },
              auth,
            )
          ).status,
        ).toBe(200)
        const other = await createAgent(venue)
        const again = await postJson(
          `${venue.url}/api/personas`,
          { handle: handle.toUpperCase(), model: 'm', persona_age: '18+', heart: HEART },
          { authorization: `Bearer ${other.credential}` },
        )
        expect(again).toMatchObject({ status: 400, json: { error: 'invalid persona' } })
        expect(JSON.stringify(again.json.issues)).toContain('handle taken')
        for (const body of [
          { handle: '', model: 'm', persona_age: '18+', heart: HEART },
          { handle: 'h'.repeat(65), model: 'm', persona_age: '18+', heart: HEART },
          { handle: uniqueHandle(), model: '', persona_age: '18+', heart: HEART },
          { handle: uniqueHandle(), model: 'm', heart: HEART },
          { handle: uniqueHandle(), model: 'm', persona_age: '18+' },
          { handle: uniqueHandle(), model: 'm', persona_age: '18+', heart: HEART, ownerId: -1 },
        ])
          expect((await postJson(`${venue.url}/api/personas`, body)).json.error).toBe(
            'invalid persona',
          )
      })

      it('binding a persona to an owner needs a credential acting for that owner', async () => {
        const owner = await createOwner(venue)
        const body = {
          handle: uniqueHandle(),
          model: 'm',
          persona_age: '18+',
          heart: HEART,
          ownerId: owner.ownerId,
        }
        expect((await postJson(`${venue.url}/api/personas`, body)).status).toBe(401)
        const stranger = await createAgent(venue)
        expect(
          (
            await postJson(`${venue.url}/api/personas`, body, {
              authorization: `Bearer ${stranger.credential}`,
            })
          ).status,
        ).toBe(403)
        const agent = await createAgent(venue, {
          ownerCredential: owner.credential,
          ownerId: owner.ownerId,
        })
        expect(
          (
            await postJson(`${venue.url}/api/personas`, body, {
              authorization: `Bearer ${agent.credential}`,
            })
          ).status,
        ).toBe(200)
      })
    })
  },
)

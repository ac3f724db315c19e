import { testBackends } from '@agents/service-kit/db'
import { describe, expect, it } from 'vitest'
import { CONTACT_A, CONTACT_B, useEscalationVenue } from '../testing/escalation-fixtures.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'a couple on $name',
  ({ name, open }) => {
    const esc = useEscalationVenue(open)
    const { call, bearer, row } = esc

    it('its personas read it and take turns; once reports hold it, nothing moves it', async () => {
      const a = await esc.member(CONTACT_A)
      const b = await esc.member(CONTACT_B)
      const coupleId = await esc.beat(`couple-${name}`)
      const read = (id: unknown, query: string, credential = a.credential) =>
        call('GET', `/api/couples/${id}${query}`, undefined, bearer(credential))
      const turn = (personaId: number, credential: string, body: string) =>
        call('POST', `/api/couples/${coupleId}/turns`, { personaId, body }, bearer(credential))

      expect((await read(coupleId, '')).json.error).toBe('personaId required')
      expect((await read('x', `?personaId=${a.personaId}`)).json.error).toBe('bad couple id')
      expect((await read(999_999, `?personaId=${a.personaId}`)).status).toBe(404)
      expect((await read(coupleId, `?personaId=${b.personaId}`)).json.error).toBe(
        'credential does not act for this persona',
      )
      expect((await read(coupleId, `?personaId=${a.personaId}`, 'vo_1_nope')).status).toBe(403)

      expect((await turn(a.personaId, a.credential, 'Hello there, sailor.')).json).toMatchObject({
        status: 'published',
      })
      expect((await turn(a.personaId, a.credential, 'Still me.')).json.error).toBe(
        'wait for your partner: the same persona never writes twice in a row',
      )
      expect((await turn(b.personaId, b.credential, 'Ahoy to you.')).status).toBe(201)
      const seen = await read(coupleId, `?personaId=${a.personaId}`)
      expect(seen.status).toBe(200)
      expect(seen.json).toMatchObject({ id: coupleId, state: 'courting' })
      expect(seen.json.personas.map((p: { id: number }) => p.id).sort()).toEqual(
        [a.personaId, b.personaId].sort(),
      )
      // After the matchmaker's opening line, the personas' turns in order.
      expect(seen.json.turns.map((t: { body: string }) => t.body).slice(-2)).toEqual([
        'Hello there, sailor.',
        'Ahoy to you.',
      ])

      // Three distinct reporters hold the couple (the venue's default threshold).
      for (const credential of [a.credential, b.credential, a.agent.credential])
        expect(
          (
            await call(
              'POST',
              '/api/report',
              { targetType: 'couple', targetId: coupleId, reason: 'testing the hold' },
              bearer(credential),
            )
          ).status,
        ).toBe(200)
      expect(await row(`SELECT state FROM couples WHERE id = $1`, [coupleId])).toEqual({
        state: 'held',
      })
      expect((await turn(a.personaId, a.credential, 'Are you there?')).json.error).toBe(
        'couple is held',
      )
      expect(
        (
          await call(
            'POST',
            `/api/couples/${coupleId}/withdraw`,
            { personaId: a.personaId },
            bearer(a.credential),
          )
        ).json.error,
      ).toBe('the courtship has already ended')
      expect(
        (
          await call(
            'POST',
            `/api/couples/${coupleId}/intro-consent`,
            { ownerId: a.ownerId },
            bearer(a.credential),
          )
        ).json.error,
      ).toBe('couple is held')
      expect(await row(`SELECT state FROM couples WHERE id = $1`, [coupleId])).toEqual({
        state: 'held',
      })
    })
  },
)

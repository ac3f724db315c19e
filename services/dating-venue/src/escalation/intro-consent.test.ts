import { testBackends } from '@agents/service-kit/db'
import { describe, expect, it } from 'vitest'
import {
  CONTACT_A,
  CONTACT_B,
  OUTSIDER_CONTACT,
  useEscalationVenue,
} from '../testing/escalation-fixtures.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'intro consent on $name',
  ({ name, open }) => {
    const esc = useEscalationVenue(open)
    const { call, bearer, sql, row } = esc

    it("the spec's rows, then idempotent; the second owner's consent commits the couple once", async () => {
      const a = await esc.member(CONTACT_A)
      const b = await esc.member(CONTACT_B)
      const outsider = await esc.member(OUTSIDER_CONTACT)
      await sql(`UPDATE personas SET status = 'withdrawn' WHERE id = $1`, [outsider.personaId])
      const coupleId = await esc.beat(`consent-${name}`)

      const consent = (ownerId: unknown, credential: string, id: unknown = coupleId) =>
        call(
          'POST',
          `/api/couples/${id}/intro-consent`,
          ownerId === undefined ? {} : { ownerId },
          bearer(credential),
        )
      expect((await consent(undefined, a.credential)).json.error).toBe('ownerId required')
      expect((await consent(a.ownerId, a.credential, 'x')).json.error).toBe('bad couple id')
      expect((await consent(a.ownerId, a.credential, 999_999)).status).toBe(404)
      expect((await consent(outsider.ownerId, outsider.credential)).json.error).toBe(
        'owner not in this couple',
      )
      expect((await consent(a.ownerId, b.credential)).status).toBe(403)
      // No invites before both owners consented.
      expect(
        (await call('POST', `/api/escalations/${coupleId}/invite`, undefined, bearer(a.credential)))
          .status,
      ).toBe(409)
      expect((await consent(a.ownerId, a.credential)).json).toEqual({
        consented: true,
        both: false,
      })
      expect((await consent(a.ownerId, a.agent.credential)).json).toEqual({
        consented: true,
        both: false,
      })
      expect((await consent(b.ownerId, b.credential)).json).toEqual({ consented: true, both: true })
      expect((await consent(b.ownerId, b.credential)).json).toEqual({ consented: true, both: true })
      expect(await row(`SELECT state FROM couples WHERE id = $1`, [coupleId])).toEqual({
        state: 'committed',
      })
      expect(await row(`SELECT count(*)::int AS n FROM events WHERE kind = 'intro_ready'`)).toEqual(
        {
          n: 1,
        },
      )
      esc.expectNoContactOutsideReveal([CONTACT_A, CONTACT_B, OUTSIDER_CONTACT])
    })
  },
)

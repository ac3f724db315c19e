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
  'invites on $name',
  ({ name, open }) => {
    const esc = useEscalationVenue(open)
    const { call, bearer } = esc

    it("A's token by signed callback, B's agent told on the board and fetching its own", async () => {
      const a = await esc.member(CONTACT_A, esc.hookUrl())
      const b = await esc.member(CONTACT_B)
      const coupleId = await esc.beat(`invites-${name}`)
      await esc.commit(coupleId, a, b)
      // The outsider is admitted after the beat, so it stays single.
      const outsider = await esc.member(OUTSIDER_CONTACT)

      expect(
        (
          await call(
            'POST',
            `/api/escalations/${coupleId}/invite`,
            undefined,
            bearer(outsider.credential),
          )
        ).status,
      ).toBe(403)
      const invite = await call(
        'POST',
        `/api/escalations/${coupleId}/invite`,
        undefined,
        bearer(a.agent.credential),
      )
      expect(invite.status).toBe(200)
      const mine = invite.json.invites.find((i: { ownerId: number }) => i.ownerId === a.ownerId)
      const theirs = invite.json.invites.find((i: { ownerId: number }) => i.ownerId === b.ownerId)
      expect(mine).toMatchObject({ delivery: 'callback' })
      expect(theirs).toMatchObject({ token: null, delivery: 'board' })
      const delivered = JSON.parse(esc.invitesToHook.at(-1)!) as { token: string; claimUrl: string }
      expect(delivered.token).toBe(mine.token)
      const tokenB = (
        await call(
          'GET',
          `/api/escalations/${coupleId}/invite`,
          undefined,
          bearer(b.agent.credential),
        )
      ).json.token
      expect(tokenB).toMatch(/^[0-9a-f-]{36}$/)
      const board = await call('GET', '/api/boards/notifications')
      expect(board.text).not.toContain(tokenB)
      expect(board.text).not.toContain(mine.token)
      esc.expectNoContactOutsideReveal([CONTACT_A, CONTACT_B, OUTSIDER_CONTACT])
    })
  },
)

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
  'the contact reveal on $name',
  ({ name, open }) => {
    const esc = useEscalationVenue(open)
    const { call, bearer } = esc

    it('refused until both are verified and both humans consented; then each sees the other', async () => {
      const a = await esc.member(CONTACT_A)
      const b = await esc.member(CONTACT_B)
      const coupleId = await esc.beat(`reveal-${name}`)
      await esc.commit(coupleId, a, b)
      const tokens = await esc.invites(coupleId, a, b)
      const { login: loginA } = await esc.claim(tokens.get(a.ownerId)!, `human-a-${name}`)
      const { login: loginB } = await esc.claim(tokens.get(b.ownerId)!, `human-b-${name}`)
      const { idp, issuer } = esc.context

      const revealA = () =>
        call('GET', `/api/couples/${coupleId}/reveal`, undefined, bearer(loginA))
      expect((await revealA()).json).toMatchObject({ error: 'reveal not ready' })
      expect(
        (
          await call(
            'GET',
            `/api/couples/${coupleId}/reveal`,
            undefined,
            bearer(a.agent.credential),
          )
        ).status,
      ).toBe(401)
      expect(
        (
          await call(
            'GET',
            `/api/couples/${coupleId}/reveal`,
            undefined,
            bearer(await issuer.sign({ sub: 'nobody' })),
          )
        ).status,
      ).toBe(403)

      expect(
        (await idp.decide(await esc.sessionOf(a.ownerId), { status: 'Approved', age: 31 })).status,
      ).toBe(200)
      expect(
        (
          await idp.decide(await esc.sessionOf(b.ownerId), {
            status: 'Approved',
            dateOfBirth: '1990-04-02',
          })
        ).status,
      ).toBe(200)

      // Contact-reveal consent comes from the signed-in humans, not the agents.
      expect(
        (
          await call(
            'POST',
            `/api/couples/${coupleId}/reveal-consent`,
            undefined,
            bearer(a.agent.credential),
          )
        ).status,
      ).toBe(401)
      expect(
        (await call('POST', `/api/couples/${coupleId}/reveal-consent`, undefined, bearer(loginA)))
          .json,
      ).toEqual({ consented: true, both: false })
      const notYet = await revealA()
      expect(notYet.status).toBe(403)
      expect(notYet.json.missing).toEqual([`owner ${b.ownerId}: no contact-reveal consent`])
      const status = await call('GET', `/api/escalations/${coupleId}/status`)
      expect(status.json).toMatchObject({ coupleId, reveal_ready: false })
      expect(
        (await call('POST', `/api/couples/${coupleId}/reveal-consent`, undefined, bearer(loginB)))
          .json,
      ).toEqual({ consented: true, both: true })
      expect((await call('GET', `/api/escalations/${coupleId}/status`)).json).toEqual({
        coupleId,
        owners: [
          { id: a.ownerId, tier: 'identity_verified' },
          { id: b.ownerId, tier: 'identity_verified' },
        ].sort((x, y) => x.id - y.id),
        reveal_ready: true,
      })
      expect((await revealA()).json).toMatchObject({
        coupleId,
        ownerId: b.ownerId,
        contactRef: CONTACT_B,
      })
      expect(
        (await call('GET', `/api/couples/${coupleId}/reveal`, undefined, bearer(loginB))).json
          .contactRef,
      ).toBe(CONTACT_A)

      // No response but the reveal ever carried a contactRef.
      esc.expectNoContactOutsideReveal([CONTACT_A, CONTACT_B, OUTSIDER_CONTACT])
    })
  },
)

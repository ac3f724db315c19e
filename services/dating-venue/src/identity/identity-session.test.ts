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
  'new identity sessions on $name',
  ({ name, open }) => {
    const esc = useEscalationVenue(open)
    const { call, bearer } = esc

    it('only for the human who claimed the owner', async () => {
      const a = await esc.member(CONTACT_A)
      const b = await esc.member(CONTACT_B)
      const coupleId = await esc.beat(`session-${name}`)
      await esc.commit(coupleId, a, b)
      const outsider = await esc.member(OUTSIDER_CONTACT)
      const tokens = await esc.invites(coupleId, a, b)
      const { login: loginA } = await esc.claim(tokens.get(a.ownerId)!, `human-a-${name}`)
      const { login: loginB } = await esc.claim(tokens.get(b.ownerId)!, `human-b-${name}`)

      expect((await call('POST', '/api/identity/session', {})).json.error).toBe('ownerId required')
      expect((await call('POST', '/api/identity/session', { ownerId: 999_999 })).status).toBe(404)
      expect(
        (await call('POST', '/api/identity/session', { ownerId: outsider.ownerId }, bearer(loginA)))
          .status,
      ).toBe(403)
      expect((await call('POST', '/api/identity/session', { ownerId: a.ownerId })).status).toBe(401)
      expect(
        (await call('POST', '/api/identity/session', { ownerId: a.ownerId }, bearer(loginB)))
          .status,
      ).toBe(403)
      // The human who claimed the owner gets a fresh check.
      const fresh = await call(
        'POST',
        '/api/identity/session',
        { ownerId: a.ownerId },
        bearer(loginA),
      )
      expect(fresh.status).toBe(200)
      expect(fresh.json.url).toMatch(new RegExp(`^${esc.context.idp.url}/verify/`))
      expect(await esc.sessionOf(a.ownerId)).toBe(fresh.json.sessionId)
    })
  },
)

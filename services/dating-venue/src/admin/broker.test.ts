import { testBackends } from '@agents/service-kit/db'
import { describe, expect, it } from 'vitest'
import { CONTACT_A, CONTACT_B, useEscalationVenue } from '../testing/escalation-fixtures.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'the broker action on $name',
  ({ name, open }) => {
    const esc = useEscalationVenue(open)
    const { call, operator, row } = esc

    it('the operator brokers a committed introduction, once', async () => {
      const a = await esc.member(CONTACT_A)
      const b = await esc.member(CONTACT_B)
      const coupleId = await esc.beat(`broker-${name}`)
      // Not yet committed: nothing to broker.
      expect((await call('POST', '/admin/actions/broker', { coupleId }, operator)).status).toBe(409)
      await esc.commit(coupleId, a, b)

      expect((await call('POST', '/admin/actions/broker', {}, operator)).json.error).toBe(
        'coupleId required',
      )
      expect(
        (await call('POST', '/admin/actions/broker', { coupleId: 999_999 }, operator)).json.error,
      ).toBe('no such couple')
      expect((await call('POST', '/admin/actions/broker', { coupleId }, operator)).json).toEqual({
        ok: true,
        coupleId,
      })
      expect((await call('POST', '/admin/actions/broker', { coupleId }, operator)).status).toBe(409)
      expect(
        await row(`SELECT count(*)::int AS n FROM events WHERE kind = 'intro_brokered'`),
      ).toEqual({ n: 1 })
      expect(await row(`SELECT state FROM couples WHERE id = $1`, [coupleId])).toEqual({
        state: 'brokered',
      })
    })
  },
)

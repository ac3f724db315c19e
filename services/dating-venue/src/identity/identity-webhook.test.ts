import { testBackends } from '@agents/service-kit/db'
import { describe, expect, it } from 'vitest'
import { CONTACT_A, CONTACT_B, useEscalationVenue } from '../testing/escalation-fixtures.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'
import { signWebhookBody } from './webhook-signature.ts'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'the identity webhook on $name',
  ({ name, open }) => {
    const esc = useEscalationVenue(open)
    const { row } = esc

    it('approved at 18+, then forged, stale, replayed and re-ordered deliveries change nothing', async () => {
      const a = await esc.member(CONTACT_A)
      const b = await esc.member(CONTACT_B)
      const coupleId = await esc.beat(`webhook-${name}`)
      await esc.commit(coupleId, a, b)
      const tokens = await esc.invites(coupleId, a, b)
      await esc.claim(tokens.get(a.ownerId)!, `human-a-${name}`)
      await esc.claim(tokens.get(b.ownerId)!, `human-b-${name}`)
      const { idp, venue } = esc.context
      const sessionA = await esc.sessionOf(a.ownerId)
      const sessionB = await esc.sessionOf(b.ownerId)
      const webhook = `${venue.url}/api/identity/webhook/idp`

      expect((await idp.decide(sessionA, { status: 'Approved', age: 31 })).status).toBe(200)
      const replay = idp.lastDelivery!
      expect(await row(`SELECT tier, age_over_18 FROM owners WHERE id = $1`, [a.ownerId])).toEqual({
        tier: 'identity_verified',
        age_over_18: true,
      })
      expect((await idp.sendRaw(replay.url, replay.body, replay.headers)).json).toMatchObject({
        ok: true,
        note: expect.stringMatching(/older or repeated/),
      })
      const tampered = replay.body.replace('"age":31', '"age":13')
      expect((await idp.sendRaw(webhook, tampered, replay.headers)).json).toEqual({
        error: 'webhook rejected',
        reason: 'bad signature',
      })
      const oldTime = String(Math.floor(Date.now() / 1000) - 400)
      expect(
        (await idp.sendRaw(webhook, replay.body, { ...replay.headers, 'x-timestamp': oldTime }))
          .json,
      ).toMatchObject({ reason: 'stale timestamp' })
      const declined = JSON.stringify({
        webhook_type: 'status.updated',
        session_id: sessionA,
        status: 'Declined',
      })
      const earlier = String(Number(replay.headers['x-timestamp']) - 60)
      const reordered = await idp.sendRaw(webhook, declined, {
        'x-signature': signWebhookBody(declined, idp.webhookSecret),
        'x-timestamp': earlier,
      })
      expect(reordered.json).toMatchObject({
        ok: true,
        note: expect.stringMatching(/older or repeated/),
      })
      expect(await row(`SELECT tier FROM owners WHERE id = $1`, [a.ownerId])).toEqual({
        tier: 'identity_verified',
      })
      const unknown = JSON.stringify({
        webhook_type: 'status.updated',
        session_id: 'no-such-session',
        status: 'Approved',
      })
      const now = String(Math.floor(Date.now() / 1000))
      expect(
        (
          await idp.sendRaw(webhook, unknown, {
            'x-signature': signWebhookBody(unknown, idp.webhookSecret),
            'x-timestamp': now,
          })
        ).json,
      ).toEqual({
        ok: true,
        note: 'no matching session/vendor_data',
      })
      const other = JSON.stringify({ webhook_type: 'data.updated', session_id: sessionA })
      expect(
        (
          await idp.sendRaw(webhook, other, {
            'x-signature': signWebhookBody(other, idp.webhookSecret),
            'x-timestamp': now,
          })
        ).json,
      ).toMatchObject({ ok: true, ignored: 'data.updated' })
      expect(
        (await idp.decide(sessionB, { status: 'Approved', dateOfBirth: '1990-04-02' })).status,
      ).toBe(200)
      expect(await row(`SELECT tier FROM owners WHERE id = $1`, [b.ownerId])).toEqual({
        tier: 'identity_verified',
      })
      esc.expectNoContactOutsideReveal([CONTACT_A, CONTACT_B])
    })

    it('approved but under 18: not verified, the personas leave the venue', async () => {
      const c = await esc.member('minor-contact-1')
      const d = await esc.member('partner-contact-1')
      const coupleId = await esc.beat(`minor-${name}`)
      await esc.commit(coupleId, c, d)
      const tokens = await esc.invites(coupleId, c, d)
      const { diditUrl } = await esc.claim(tokens.get(c.ownerId)!, `minor-${name}`)
      const sessionId = diditUrl.split('/verify/')[1]!
      expect(
        (await esc.context.idp.decide(sessionId, { status: 'Approved', age: 16 })).status,
      ).toBe(200)
      expect(await row(`SELECT tier, age_over_18 FROM owners WHERE id = $1`, [c.ownerId])).toEqual({
        tier: 'profile_claimed',
        age_over_18: false,
      })
      expect(await row(`SELECT status FROM personas WHERE id = $1`, [c.personaId])).toEqual({
        status: 'withdrawn',
      })
      expect(await row(`SELECT state FROM couples WHERE id = $1`, [coupleId])).toEqual({
        state: 'withdrawn',
      })
      expect(
        await row(`SELECT count(*)::int AS n FROM events WHERE kind = 'underage_withdrawn'`),
      ).toEqual({ n: 1 })
    }, 60_000)
  },
)

import { testBackends } from '@agents/service-kit/db'
import type { z } from '@hono/zod-openapi'
import { describe, expect, it } from 'vitest'
import { BeatResult, Brokered, SettingStored } from '../admin/admin-schemas.ts'
import { CoupleView, TurnPublished, Withdrawn } from '../couples/couple-schemas.ts'
import { IdentitySession, WebhookApplied, WebhookRejected } from '../identity/identity-schemas.ts'
import { CONTACT_A, CONTACT_B, useEscalationVenue } from '../testing/escalation-fixtures.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'
import {
  Claimed,
  Consented,
  EscalationStatus,
  InvitesCreated,
  OwnInvite,
  Revealed,
  RevealNotReady,
} from './escalation-schemas.ts'

/** The body parses by its documented schema, and has no field the schema does not name. */
const expectDocumented = (schema: z.ZodType, body: unknown) => {
  const parsed = schema.safeParse(body)
  expect(parsed.error, JSON.stringify(body)).toBeUndefined()
  expect(parsed.data).toEqual(body)
}

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'documented escalation answers on $name',
  ({ name, open }) => {
    const esc = useEscalationVenue(open)
    const { call, bearer, operator } = esc

    it('from the beat to the broker, each answer is the schema /openapi.json names for it', async () => {
      expectDocumented(
        SettingStored,
        (await call('POST', '/admin/actions/settings', { key: 'cap', value: 50 }, operator)).json,
      )
      const a = await esc.member(CONTACT_A, esc.hookUrl())
      const b = await esc.member(CONTACT_B)
      const beat = await call('POST', '/admin/actions/beat', { cycleId: `doc-${name}` }, operator)
      expectDocumented(BeatResult, beat.json)
      const coupleId = beat.json.coupleIds[0] as number
      expectDocumented(
        CoupleView,
        (
          await call(
            'GET',
            `/api/couples/${coupleId}?personaId=${a.personaId}`,
            undefined,
            bearer(a.credential),
          )
        ).json,
      )
      expectDocumented(
        TurnPublished,
        (
          await call(
            'POST',
            `/api/couples/${coupleId}/turns`,
            { personaId: a.personaId, body: 'Hello there, sailor.' },
            bearer(a.credential),
          )
        ).json,
      )
      for (const { ownerId, credential } of [a, b])
        expectDocumented(
          Consented,
          (
            await call(
              'POST',
              `/api/couples/${coupleId}/intro-consent`,
              { ownerId },
              bearer(credential),
            )
          ).json,
        )
      const minted = await call(
        'POST',
        `/api/escalations/${coupleId}/invite`,
        undefined,
        bearer(a.credential),
      )
      expectDocumented(InvitesCreated, minted.json)
      const own = await call(
        'GET',
        `/api/escalations/${coupleId}/invite`,
        undefined,
        bearer(b.agent.credential),
      )
      expectDocumented(OwnInvite, own.json)
      const loginA = await esc.context.issuer.sign({ sub: `doc-a-${name}` })
      const loginB = await esc.context.issuer.sign({ sub: `doc-b-${name}` })
      const tokenA = minted.json.invites.find(
        (i: { ownerId: number }) => i.ownerId === a.ownerId,
      ).token
      const claimA = await call('POST', '/api/escalations/claim', {
        token: tokenA,
        authToken: loginA,
      })
      expectDocumented(Claimed, claimA.json)
      expectDocumented(
        Claimed,
        (await call('POST', '/api/escalations/claim', { token: own.json.token, authToken: loginB }))
          .json,
      )
      const session = await call(
        'POST',
        '/api/identity/session',
        { ownerId: b.ownerId },
        bearer(loginB),
      )
      expectDocumented(IdentitySession, session.json)
      expectDocumented(
        EscalationStatus,
        (await call('GET', `/api/escalations/${coupleId}/status`)).json,
      )

      const { idp } = esc.context
      await idp.decide(await esc.sessionOf(a.ownerId), { status: 'Approved', age: 31 })
      const replay = idp.lastDelivery!
      expectDocumented(
        WebhookApplied,
        (await idp.sendRaw(replay.url, replay.body, replay.headers)).json,
      )
      expectDocumented(
        WebhookRejected,
        (await idp.sendRaw(replay.url, replay.body.replace('31', '13'), replay.headers)).json,
      )
      await idp.decide(session.json.sessionId, { status: 'Approved', age: 40 })

      expectDocumented(
        Consented,
        (await call('POST', `/api/couples/${coupleId}/reveal-consent`, undefined, bearer(loginA)))
          .json,
      )
      expectDocumented(
        RevealNotReady,
        (await call('GET', `/api/couples/${coupleId}/reveal`, undefined, bearer(loginA))).json,
      )
      await call('POST', `/api/couples/${coupleId}/reveal-consent`, undefined, bearer(loginB))
      expectDocumented(
        Revealed,
        (await call('GET', `/api/couples/${coupleId}/reveal`, undefined, bearer(loginA))).json,
      )
      expectDocumented(
        Brokered,
        (await call('POST', '/admin/actions/broker', { coupleId }, operator)).json,
      )

      // A second couple, to document the withdrawal.
      const c = await esc.member('withdrawing-contact')
      await esc.member('partner-contact')
      const second = await esc.beat(`doc-2-${name}`)
      expectDocumented(
        Withdrawn,
        (
          await call(
            'POST',
            `/api/couples/${second}/withdraw`,
            { personaId: c.personaId },
            bearer(c.credential),
          )
        ).json,
      )
    })
  },
)

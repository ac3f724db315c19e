import { randomUUID } from 'node:crypto'
import { testBackends } from '@agents/service-kit/db'
import { describe, expect, it } from 'vitest'
import { CONTACT_A, CONTACT_B, useEscalationVenue } from '../testing/escalation-fixtures.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'claiming an invite on $name',
  ({ name, open }) => {
    const esc = useEscalationVenue(open)
    const { call, bearer, row } = esc

    it('a racing second claim of the same invite loses; refused claims change nothing', async () => {
      const a = await esc.member(CONTACT_A)
      const b = await esc.member(CONTACT_B)
      const coupleId = await esc.beat(`claim-${name}`)
      await esc.commit(coupleId, a, b)
      const tokens = await esc.invites(coupleId, a, b)
      const tokenA = tokens.get(a.ownerId)!
      const tokenB = tokens.get(b.ownerId)!
      const { login: loginA } = await esc.claim(tokenA, `human-a-${name}`)
      expect(await row(`SELECT tier FROM owners WHERE id = $1`, [a.ownerId])).toEqual({
        tier: 'profile_claimed',
      })

      const loginB = await esc.context.issuer.sign({ sub: 'human-b' })
      const claims = await Promise.all([
        call('POST', '/api/escalations/claim', { token: tokenB, authToken: loginB }),
        call('POST', '/api/escalations/claim', { token: tokenB, authToken: loginB }),
      ])
      expect(claims.map((c) => c.status).sort()).toEqual([200, 404])
      const claimB = claims.find((c) => c.status === 200)!
      expect(claimB.json).toMatchObject({
        ok: true,
        ownerId: b.ownerId,
        tier: 'profile_claimed',
        identityNote: null,
      })
      expect(claimB.json.diditUrl).toMatch(new RegExp(`^${esc.context.idp.url}/verify/`))
      expect(claims.find((c) => c.status === 404)!.json.error).toBe('invalid or used invite')

      // Refused claims change nothing.
      const before = await row(
        `SELECT count(*)::int AS n FROM invites WHERE claimed_at IS NOT NULL`,
      )
      expect(
        (await call('POST', '/api/escalations/claim', { token: tokenA, authToken: loginA })).status,
      ).toBe(404)
      expect(
        (await call('POST', '/api/escalations/claim', { token: randomUUID(), authToken: loginA }))
          .status,
      ).toBe(404)
      expect((await call('POST', '/api/escalations/claim', { token: 'short' })).json.error).toBe(
        'token + authToken required',
      )
      const refreshed = await call(
        'POST',
        `/api/escalations/${coupleId}/invite`,
        undefined,
        bearer(b.credential),
      )
      const freshB = refreshed.json.invites.find(
        (i: { ownerId: number }) => i.ownerId === b.ownerId,
      ).token
      const { issuer, stranger } = esc.context
      for (const [why, token] of [
        ['wrong issuer', await stranger.sign({ sub: 'human-b' })],
        ['wrong audience', await issuer.sign({ sub: 'human-b', aud: 'someone-else' })],
        ['expired', await issuer.sign({ sub: 'human-b' }, { expiresIn: -120 })],
        [
          'algorithm',
          await issuer.sign(
            { sub: 'human-b' },
            { alg: 'HS256', key: new TextEncoder().encode('x'.repeat(32)) },
          ),
        ],
        ['garbage', 'not-a-token-at-all'],
      ] as const) {
        const refused = await call('POST', '/api/escalations/claim', {
          token: freshB,
          authToken: token,
        })
        expect(refused.status, why).toBe(401)
        expect(refused.json.error).toBe('auth verification failed')
        expect(refused.json.reason).toBeTruthy()
      }
      expect(
        await row(`SELECT count(*)::int AS n FROM invites WHERE claimed_at IS NOT NULL`),
      ).toEqual(before)
      esc.expectNoContactOutsideReveal([CONTACT_A, CONTACT_B])
    })

    it('one human, one profile: a second claim by the same sign-in is refused and rolled back', async () => {
      const c = await esc.member('third-contact')
      const d = await esc.member('fourth-contact')
      const coupleId = await esc.beat(`claim-twice-${name}`)
      await esc.commit(coupleId, c, d)
      const tokens = await esc.invites(coupleId, c, d)
      const { login } = await esc.claim(tokens.get(c.ownerId)!, `one-human-${name}`)
      const twice = await call('POST', '/api/escalations/claim', {
        token: tokens.get(d.ownerId)!,
        authToken: login,
      })
      expect(twice.status).toBe(403)
      expect(twice.json.error).toBe('this sign-in already claimed another profile')
      // The refused claim left the invite unused: its own human claims it.
      await esc.claim(tokens.get(d.ownerId)!, `other-human-${name}`)
      expect(await row(`SELECT tier FROM owners WHERE id = $1`, [d.ownerId])).toEqual({
        tier: 'profile_claimed',
      })
    })
  },
)

import { testBackends } from '@agents/service-kit/db'
import { getAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import { createAgent, createOwner } from '../test-helpers.ts'
import { signInToChat } from '../testing/chat-fixtures.ts'
import { signInToConsole } from '../testing/siwe-sign-in.ts'
import { TEST_ADMIN_TOKEN, TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'
import { bearer, erasureVenue } from './testing/erasure-venue.ts'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'who may erase on $name',
  ({ open }) => {
    const t = erasureVenue(open)
    const { call, sql } = t

    it('who may erase: the operator, a credential acting for the owner, its signed-in human; others are refused', async () => {
      const erase = (ownerId: number | string, headers: Record<string, string> = {}) =>
        call('DELETE', `/api/owners/${ownerId}`, undefined, headers)
      const c = await createOwner(t.venue)
      const d = await createOwner(t.venue)
      const agentOfD = await createAgent(t.venue, {
        ownerCredential: d.credential,
        ownerId: d.ownerId,
      })

      expect((await erase('x', bearer(TEST_ADMIN_TOKEN))).json.error).toBe('bad owner id')
      expect((await erase(2 ** 31, bearer(TEST_ADMIN_TOKEN))).status).toBe(400)
      const none = await erase(c.ownerId)
      expect(none.status).toBe(401)
      expect(none.json.error).toBe('credential required: acting for this owner')
      expect((await erase(c.ownerId, bearer(d.credential))).json).toEqual({
        error: 'credential does not act for this owner',
      })
      expect((await erase(c.ownerId, bearer(agentOfD.credential))).status).toBe(403)
      expect((await erase(c.ownerId, bearer(`vo_${c.ownerId}_${'A'.repeat(43)}`))).json.error).toBe(
        'credential not recognised',
      )
      const garbage = await erase(c.ownerId, bearer('not-a-token-at-all'))
      expect(garbage.status).toBe(401)
      expect(garbage.json.error).toBe('auth verification failed')
      // A signed-in human who did not claim this owner.
      expect(
        (await erase(c.ownerId, bearer(await t.issuer.sign({ sub: 'someone-else' })))).json,
      ).toEqual({
        error: 'login does not act for this owner',
      })
      expect((await erase(999_999, bearer(TEST_ADMIN_TOKEN))).json).toEqual({
        error: 'no such owner',
      })
      expect(
        (await erase(999_999, bearer(await t.issuer.sign({ sub: 'someone-else' })))).status,
      ).toBe(404)
      expect(
        (
          await sql(`SELECT count(*)::int AS n FROM owners WHERE id = ANY($1)`, [
            [c.ownerId, d.ownerId],
          ])
        )[0],
      ).toEqual({ n: 2 })

      // The operator erases C (token) and G (the console's session cookie); D's own agent erases D.
      expect((await erase(c.ownerId, bearer(TEST_ADMIN_TOKEN))).json).toMatchObject({
        erased: true,
        personas: 0,
      })
      const g = await createOwner(t.venue)
      const signedIn = await signInToConsole(t.venue.url, t.operatorAccount)
      expect(signedIn.status).toBe(200)
      const { cookie } = signedIn
      expect((await erase(g.ownerId, { cookie: 'venue_operator=not-a-session' })).status).toBe(401)
      expect(
        (await erase(g.ownerId, { cookie, origin: 'https://elsewhere.example' })).json,
      ).toEqual({
        error: 'cross-site request refused',
      })
      expect((await erase(g.ownerId, { cookie })).json).toMatchObject({ erased: true })
      expect((await erase(d.ownerId, bearer(agentOfD.credential))).json).toMatchObject({
        erased: true,
      })
      expect(
        await sql(`SELECT id FROM owners WHERE id = ANY($1)`, [[c.ownerId, d.ownerId, g.ownerId]]),
      ).toEqual([])
      expect(
        await sql(`SELECT id FROM agent_endpoints WHERE id = $1`, [agentOfD.endpointId]),
      ).toEqual([])
      // The erasures are recorded without the owners' ids.
      expect(
        await sql(`SELECT detail FROM events WHERE kind = 'owner_erased' ORDER BY id DESC LIMIT 3`),
      ).toEqual([
        { detail: { by: 'agent' } },
        { detail: { by: 'operator', operator: t.operatorAccount.address.toLowerCase() } },
        { detail: { by: 'operator', operator: 'token' } },
      ])
      // The human of the chat page: the signed-in wallet erases the owner it keys, no other.
      const human = await signInToChat(t.venue.url)
      const stranger = await signInToChat(t.venue.url)
      // Stored checksummed, as a doc paid from that wallet stores it: the session's is lower-case.
      const [inserted] = await sql<{ id: number }>(
        `INSERT INTO owners (wallet, credential_hash) VALUES ($1, 'x') RETURNING id`,
        [getAddress(human.wallet)],
      )
      const ownWallet = inserted!.id
      expect((await erase(ownWallet, { cookie: stranger.cookie })).json).toEqual({
        error: 'the signed-in wallet owns no profile here: submit a doc first',
      })
      await sql(`INSERT INTO owners (wallet, credential_hash) VALUES ($1, 'x') RETURNING id`, [
        stranger.wallet,
      ])
      expect((await erase(ownWallet, { cookie: stranger.cookie })).json).toEqual({
        error: 'credential does not act for this owner',
      })
      expect(
        (await erase(ownWallet, { cookie: human.cookie, origin: 'https://elsewhere.example' }))
          .status,
      ).toBe(403)
      expect((await erase(ownWallet, { cookie: human.cookie })).json).toMatchObject({
        erased: true,
      })
      expect(await sql(`SELECT id FROM owners WHERE id = $1`, [ownWallet])).toEqual([])
      // Agents read the route and what it removes in the skill and the full text.
      for (const path of ['/skill', '/llms-full.txt']) {
        const text = (await call('GET', path)).text
        for (const words of ['DELETE /api/owners/:ownerId', 'match vectors', 'anonymous amounts'])
          expect(text, path).toContain(words)
      }
    }, 60_000)
  },
)

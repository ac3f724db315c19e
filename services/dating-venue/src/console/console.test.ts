import { postJson } from '@agents/service-kit'
import { rowsOf, testBackends } from '@agents/service-kit/db'
import { sql } from 'drizzle-orm'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { admitPersona, createAgent } from '../test-helpers.ts'
import { signInToConsole } from '../testing/siwe-sign-in.ts'
import { useTestVenue } from '../testing/venue-fixtures.ts'
import { TEST_ADMIN_TOKEN, TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'
import { AdminSnapshot } from './console-schemas.ts'

const operatorAccount = privateKeyToAccount(generatePrivateKey())
const token = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'the operator console on $name',
  ({ open }) => {
    let venue: Venue
    const { get } = useTestVenue(
      open,
      (started) => {
        venue = started
      },
      {
        env: {
          VENUE_OPERATOR_WALLETS: operatorAccount.address,
          VENUE_REPORT_THRESHOLD: '1',
          GEO_TRUSTED_COUNTRY_HEADER: 'cf-ipcountry',
        },
      },
    )

    const signIn = (account = operatorAccount) => signInToConsole(venue.url, account)

    it('/admin.json carries exactly the spec keys (and ours: the unowned share, the outbound budgets), with their types, to the token and to a signed-in operator wallet', async () => {
      const byToken = await get('/admin.json', token)
      expect(byToken.status).toBe(200)
      expect(Object.keys(byToken.json).sort()).toEqual(
        [
          'health',
          'sim_mode',
          'admitted',
          'cap',
          'cap_used_pct',
          'unowned_share_pct',
          'unowned_seats',
          'unowned_admitted',
          'outbound_budgets',
          'couples_by_state',
          'turns_by_status',
          'chaperone_today',
          'orders_by_status',
          'revenue_usdc',
          'buyback_reserve_usdc',
          'geo_denials_today',
          'intros_to_broker',
          'recent_events',
        ].sort(),
      )
      expect(AdminSnapshot.strict().safeParse(byToken.json).error).toBeUndefined()
      expect(byToken.json).toMatchObject({
        health: { ok: true, database: 'ok' },
        sim_mode: false,
        couples_by_state: { courting: 0, committed: 0, brokered: 0, withdrawn: 0, held: 0 },
        orders_by_status: { challenged: 0, fulfilled: 0, failed: 0 },
        revenue_usdc: '0.00',
      })

      const session = await signIn()
      expect(session.status).toBe(200)
      expect(session.json).toEqual({ operator: operatorAccount.address.toLowerCase() })
      expect(session.setCookie).toMatch(/HttpOnly/i)
      expect(session.setCookie).toMatch(/SameSite=Strict/i)
      expect((await get('/admin.json', { cookie: session.cookie })).status).toBe(200)
      const page = await get('/admin', { cookie: session.cookie })
      expect(page.status).toBe(200)
      expect(page.headers.get('content-security-policy')).toMatch(/script-src 'nonce-/)
      // The page is a shell: no data is in it before its script asks (not even who is signed in).
      expect(page.text).not.toContain(operatorAccount.address.toLowerCase())
    })

    it('sign-in refuses a wallet off the allow-list, a replayed nonce, and a signed-out or cross-site cookie', async () => {
      const stranger = await signIn(privateKeyToAccount(generatePrivateKey()))
      expect(stranger.status).toBe(403)
      expect(stranger.json.error).toBe('this wallet is not an operator of this venue')
      expect(stranger.cookie).toBe('')

      const session = await signIn()
      const crossSite = await fetch(`${venue.url}/admin/actions/settings`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          cookie: session.cookie,
          origin: 'https://evil.example',
        },
        body: JSON.stringify({ key: 'cap', value: 3 }),
      })
      expect(crossSite.status).toBe(403)
      expect(await venue.deps.settings.cap()).not.toBe(3)

      const end = await fetch(`${venue.url}/api/operator/session/end`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: session.cookie },
        body: '{}',
      })
      expect(end.status).toBe(200)
      expect((await get('/admin.json', { cookie: session.cookie })).status).toBe(401)
      const signedOutPage = await get('/admin', { cookie: session.cookie })
      expect(signedOutPage.status).toBe(401)
      expect(signedOutPage.text).toContain('Sign in with your wallet')
    })

    it('a beat and a setting from the console are events naming the operator', async () => {
      const session = await signIn()
      const headers = { cookie: session.cookie }
      expect((await postJson(`${venue.url}/admin/actions/beat`, {}, headers)).status).toBe(200)
      expect(
        (await postJson(`${venue.url}/admin/actions/settings`, { key: 'cap', value: 400 }, headers))
          .json,
      ).toMatchObject({ ok: true, key: 'cap' })
      const events = (await get('/admin.json', token)).json.recent_events
      const operator = operatorAccount.address.toLowerCase()
      expect(events).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            kind: 'beat_run',
            detail: expect.objectContaining({ operator }),
          }),
          expect.objectContaining({
            kind: 'setting_changed',
            detail: expect.objectContaining({ key: 'cap', operator }),
          }),
        ]),
      )
    })

    it('geo denials and chaperone verdicts are counted for today', async () => {
      const before = (await get('/admin.json', token)).json
      const denied = await fetch(`${venue.url}/api/boards/seeking`, {
        headers: { 'cf-ipcountry': 'KP' },
      })
      expect(denied.status).toBe(403)
      await admitPersona(venue)
      const refused = await admitPersona(venue, { about: 'Venmo me $50 and text 415 555 0199' })
      expect(refused.answer.json.admitted).toBe(false)
      const after = (await get('/admin.json', token)).json
      expect(after.geo_denials_today).toBe(before.geo_denials_today + 1)
      expect(after.chaperone_today.allow).toBe(before.chaperone_today.allow + 1)
      expect(after.chaperone_today.blocked + after.chaperone_today.held).toBe(
        before.chaperone_today.blocked + before.chaperone_today.held + 1,
      )
      expect(after.admitted).toBe(before.admitted + 1)
    })

    it('a reported post waits in the queue; the operator approves it back, then rejects another; events name the operator', async () => {
      const { agent, answer } = await admitPersona(venue)
      const auth = { authorization: `Bearer ${agent.credential}` }
      const post = (body: string) =>
        postJson(
          `${venue.url}/api/boards/seeking`,
          { personaId: answer.json.personaId, body },
          auth,
        )
      const first = (await post('Looking for a slow reader of old maps.')).json.id as number
      const second = (await post('Looking for a tide pool explorer.')).json.id as number
      const reporter = await createAgent(venue)
      for (const id of [first, second])
        await postJson(
          `${venue.url}/api/report`,
          { targetType: 'post', targetId: id, reason: 'spam' },
          { authorization: `Bearer ${reporter.credential}` },
        )
      const queue = (await get('/admin/queue', token)).json
      expect(queue.heldPosts).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            id: first,
            reporters: 1,
            body: expect.stringContaining('maps'),
          }),
          expect.objectContaining({ id: second, reporters: 1 }),
        ]),
      )
      // A held item is listed once: not again among the reported ones.
      expect(queue.reported.filter((r: { targetId: number }) => r.targetId === first)).toEqual([])

      const session = await signIn()
      const decide = (targetId: number, decision: string) =>
        postJson(
          `${venue.url}/admin/actions/moderate`,
          { targetType: 'post', targetId, decision },
          { cookie: session.cookie },
        )
      expect((await decide(first, 'approve')).json).toEqual({
        ok: true,
        targetType: 'post',
        targetId: first,
        status: 'published',
      })
      expect((await decide(second, 'reject')).json.status).toBe('blocked')
      expect((await decide(second, 'approve')).status).toBe(409)
      const board = (await get('/api/boards/seeking')).json
      const shown = JSON.stringify(board)
      expect(shown).toContain('old maps')
      expect(shown).not.toContain('tide pool')
      const events = (await get('/admin.json', token)).json.recent_events
      expect(events).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            kind: 'moderated',
            detail: expect.objectContaining({
              targetId: first,
              decision: 'approve',
              operator: operatorAccount.address.toLowerCase(),
            }),
          }),
        ]),
      )
      // Bad input changes nothing.
      for (const body of [
        { targetType: 'post', targetId: 0, decision: 'approve' },
        { targetType: 'post', targetId: 2_147_483_648, decision: 'approve' },
        { targetType: 'poster', targetId: first, decision: 'approve' },
        { targetType: 'post', targetId: first, decision: 'approve', reason: 'a\u0000b' },
      ])
        expect((await postJson(`${venue.url}/admin/actions/moderate`, body, token)).status).toBe(
          400,
        )
    })

    it('the snapshot and the queue carry no heart and no contact pointer', async () => {
      const marker = 'Oeuaie aieou ouaie, a quiet lighthouse keeper.'
      await admitPersona(venue, { about: marker, seeking: 'someone kind' })
      const snapshot = (await get('/admin.json', token)).text
      const queue = (await get('/admin/queue', token)).text
      const trends = (await get('/admin/trends', token)).text
      for (const text of [snapshot, queue, trends]) {
        expect(text).not.toContain('lighthouse')
        expect(text).not.toContain('contactRef')
      }
      const [row] = rowsOf<{ n: number }>(
        await venue.deps.database.db.execute(
          sql`SELECT count(*)::int AS n FROM personas WHERE status = 'admitted'`,
        ),
      )
      expect((await get('/admin.json', token)).json.admitted).toBe(row!.n)
      const days = JSON.parse(trends).days
      expect(days).toHaveLength(14)
      expect(days.at(-1).day).toBe(new Date().toISOString().slice(0, 10))
      expect(days.at(-1).admissions).toBeGreaterThanOrEqual(1)
    })
  },
)

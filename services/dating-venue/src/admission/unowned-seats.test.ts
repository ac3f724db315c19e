import { postJson } from '@agents/service-kit'
import { createTestDatabase, testBackends } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { createAgent, createOwner, HEART, uniqueHandle } from '../test-helpers.ts'
import { useTestVenue } from '../testing/venue-fixtures.ts'
import {
  startTestVenue,
  TEST_ADMIN_TOKEN,
  TEST_DATABASE_URL,
  VENUE_TEST_DATABASE,
} from '../testing.ts'

const operator = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }
/** A client at its own address (the venue trusts one proxy's X-Forwarded-For here). */
const from = (n: number) => ({ 'x-forwarded-for': `203.0.113.${n}` })
const persona = (extra: Record<string, unknown> = {}) => ({
  handle: uniqueHandle('seat'),
  model: 'm',
  persona_age: '18+',
  heart: HEART,
  ...extra,
})
const SHARE_FULL = {
  admitted: false,
  reason: 'cap reached',
  capReached: true,
  unownedShareFull: true,
  personaId: expect.any(Number),
}

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'seats of personas without an owner on $name',
  ({ open }) => {
    let venue: Venue
    const { get, admin } = useTestVenue(
      open,
      (started) => {
        venue = started
      },
      {
        env: {
          VENUE_CAP: '20',
          VENUE_UNOWNED_SHARE_PCT: '10',
          RATE_LIMIT_ANONYMOUS_PERSONA: '3/3600',
          GEO_TRUST_FORWARDED_FOR: '1',
          VENUE_REPORT_THRESHOLD: '1',
        },
      },
    )
    const enter = (headers: Record<string, string>, extra: Record<string, unknown> = {}) =>
      postJson(`${venue.url}/api/personas`, persona(extra), headers)
    const snapshot = async () => (await get('/admin.json', operator)).json
    const statusOf = async (id: number) =>
      (
        (await venue.deps.database.client.query('SELECT status FROM personas WHERE id = $1', [id]))
          .rows[0] as { status: string }
      ).status
    const counts = async () =>
      (
        await venue.deps.database.client.query(
          'SELECT (SELECT count(*)::int FROM personas) AS personas, (SELECT sum(count)::int FROM day_counters) AS counters',
          [],
        )
      ).rows[0]
    let anonymous: number[] = []
    let owner: { ownerId: number; credential: string }

    it('an anonymous flood takes the unowned share (2 of 20 seats) and no more; an owner’s persona is still admitted', async () => {
      const answers = []
      for (const client of [1, 1, 1, 2, 2, 2]) answers.push(await enter(from(client)))
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 422, 422, 422, 422])
      for (const answer of answers.slice(2)) expect(answer.json).toEqual(SHARE_FULL)
      anonymous = answers.map((answer) => answer.json.personaId as number)
      // Waiting, as at the cap: a later beat seats them when an unowned seat frees.
      expect(await statusOf(anonymous[2]!)).toBe('pending')
      // A red-team persona and an agent bound to no owner have no owner either.
      expect((await enter(from(3), { redteam: true })).json).toEqual(SHARE_FULL)
      const agent = await createAgent(venue)
      const bound = await enter({ authorization: `Bearer ${agent.credential}` })
      expect(bound).toMatchObject({ status: 422, json: SHARE_FULL })

      owner = await createOwner(venue)
      const owned = await enter(
        { authorization: `Bearer ${owner.credential}` },
        { ownerId: owner.ownerId },
      )
      expect(owned).toMatchObject({ status: 200, json: { admitted: true, reason: 'admitted' } })
      expect(await snapshot()).toMatchObject({
        admitted: 3,
        cap: 20,
        cap_used_pct: 15,
        unowned_share_pct: 10,
        unowned_seats: 2,
        unowned_admitted: 2,
      })
    })

    it('an owned persona at a full cap waits without unownedShareFull and is seated past the unowned queue', async () => {
      expect((await admin('cap', 3)).status).toBe(200)
      const waiting = await enter(
        { authorization: `Bearer ${owner.credential}` },
        { ownerId: owner.ownerId },
      )
      expect(waiting).toMatchObject({
        status: 422,
        json: { reason: 'cap reached', capReached: true },
      })
      expect(waiting.json.unownedShareFull).toBeUndefined()
      // One more seat: the beat gives it to the owner's persona, though older unowned ones wait.
      expect((await admin('cap', 4)).status).toBe(200)
      expect((await postJson(`${venue.url}/admin/actions/beat`, {}, operator)).status).toBe(200)
      expect(await statusOf(waiting.json.personaId)).toBe('admitted')
      expect(await statusOf(anonymous[2]!)).toBe('pending')
      expect(await snapshot()).toMatchObject({ admitted: 4, unowned_admitted: 2 })
      expect((await admin('cap', 20)).status).toBe(200)
    })

    it('seats come back: a held unowned persona frees an unowned seat for the oldest one waiting; an erased owner frees owned ones', async () => {
      const reported = await postJson(
        `${venue.url}/api/report`,
        { targetType: 'persona', targetId: anonymous[0] },
        from(7),
      )
      expect(reported.status).toBe(200)
      expect(await statusOf(anonymous[0]!)).toBe('held')
      expect(await snapshot()).toMatchObject({ admitted: 3, unowned_admitted: 1 })
      await postJson(`${venue.url}/admin/actions/beat`, {}, operator)
      expect(await statusOf(anonymous[2]!)).toBe('admitted')
      expect(await statusOf(anonymous[3]!)).toBe('pending')
      expect(await snapshot()).toMatchObject({ admitted: 4, unowned_admitted: 2 })

      const erased = await fetch(`${venue.url}/api/owners/${owner.ownerId}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${owner.credential}` },
      })
      expect(erased.status).toBe(200)
      expect(await snapshot()).toMatchObject({ admitted: 2, unowned_admitted: 2 })
    })

    it('the operator sets the share like the cap; the beat seats waiting personas up to it', async () => {
      expect(await admin('unowned_share_pct', 50)).toMatchObject({
        status: 200,
        json: { ok: true, key: 'unowned_share_pct', value: '50' },
      })
      for (const value of [101, -1, 1.5, 'half', true])
        expect(await admin('unowned_share_pct', value)).toMatchObject({
          status: 400,
          json: { error: 'invalid value for unowned_share_pct' },
        })
      expect(await snapshot()).toMatchObject({ unowned_share_pct: 50, unowned_seats: 10 })
      await postJson(`${venue.url}/admin/actions/beat`, {}, operator)
      // Every unowned persona still waiting (three of the flood, the red-team one, the agent's).
      expect(await snapshot()).toMatchObject({ admitted: 7, unowned_admitted: 7 })
    })

    it('anonymous submissions are limited per client per hour: 429 with Retry-After and RateLimit headers before the chaperone, nothing written', async () => {
      const before = await counts()
      const refused = await enter(from(1))
      expect(refused.status).toBe(429)
      const retryAfter = Number(refused.headers.get('retry-after'))
      expect(retryAfter).toBeGreaterThan(0)
      expect(retryAfter).toBeLessThanOrEqual(3600)
      expect(refused.headers.get('ratelimit-policy')).toBe('"anonymous-persona";q=3;w=3600')
      expect(refused.headers.get('ratelimit')).toMatch(/^"anonymous-persona";r=0;t=\d+$/)
      expect(refused.json).toMatchObject({
        error: expect.stringContaining('too many requests'),
        limit: 'anonymous-persona',
        retryAfter,
      })
      expect(await counts()).toEqual(before)
      // Another client is counted apart; a credential is not an anonymous submission.
      expect((await enter(from(9))).status).toBe(200)
      const agent = await createAgent(venue)
      const credentialed = await enter({ authorization: `Bearer ${agent.credential}`, ...from(1) })
      expect(credentialed.status).toBe(200)
    })
  },
)

// Real PostgreSQL only: PGlite has one connection and cannot interleave.
describe.skipIf(!TEST_DATABASE_URL)('the unowned share under concurrency, two replicas', () => {
  let replicas: Venue[] = []
  let drop: () => Promise<void>
  beforeAll(async () => {
    const database = await createTestDatabase(TEST_DATABASE_URL!, VENUE_TEST_DATABASE)
    drop = database.drop
    const env = { VENUE_CAP: '20', VENUE_UNOWNED_SHARE_PCT: '10', DATABASE_POOL_MAX: '20' }
    replicas = [
      await startTestVenue({ databaseUrl: database.url, env }),
      await startTestVenue({ databaseUrl: database.url, env }),
    ]
  }, 60_000)
  afterAll(async () => {
    for (const replica of replicas) await replica.close()
    await drop?.()
  })

  it('30 anonymous and 18 owners’ personas at once against a cap of 20: every owned one seated, the unowned ones in their 2 seats', async () => {
    // Whatever the order, unowned personas hold 2 seats at most, so the 18 owned ones all fit.
    const owners = await Promise.all(Array.from({ length: 18 }, () => createOwner(replicas[0]!)))
    const requests = [
      ...Array.from({ length: 30 }, () => ({ headers: {}, extra: {} })),
      ...owners.map((owner) => ({
        headers: { authorization: `Bearer ${owner.credential}` },
        extra: { ownerId: owner.ownerId },
      })),
    ]
    const answers = await Promise.all(
      requests.map(({ headers, extra }, n) =>
        postJson(`${replicas[n % 2]!.url}/api/personas`, persona(extra), headers),
      ),
    )
    expect(answers.every((answer) => answer.status === 200 || answer.status === 422)).toBe(true)
    const { rows } = await replicas[0]!.deps.database.client.query(
      `SELECT owner_id IS NOT NULL AS owned, status, count(*)::int AS n
       FROM personas GROUP BY 1, 2 ORDER BY 1, 2`,
      [],
    )
    expect(rows).toEqual([
      { owned: false, status: 'admitted', n: 2 },
      { owned: false, status: 'pending', n: 28 },
      { owned: true, status: 'admitted', n: 18 },
    ])
    const { rows: seats } = await replicas[0]!.deps.database.client.query(
      'SELECT used, unowned_used FROM capacity',
      [],
    )
    expect(seats).toEqual([{ used: 20, unowned_used: 2 }])
  }, 60_000)
})

import { createServer } from 'node:http'
import type { Devnet } from '@agents/devnet'
import { sharedDevnet } from '@agents/devnet/testing'
import { postJson } from '@agents/service-kit'
import { createTestDatabase, testBackends } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { admitPersona, HEART, uniqueHandle } from '../test-helpers.ts'
import { useTestVenue } from '../testing/venue-fixtures.ts'
import {
  startTestVenue,
  TEST_ADMIN_TOKEN,
  TEST_DATABASE_URL,
  VENUE_TEST_DATABASE,
} from '../testing.ts'

const operator = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }
const METRICS_TOKEN = 'outbound-budget-metrics-token'

// A moderation endpoint speaking OpenAI's protocol over HTTP: every check is a real outbound call.
let moderationCalls = 0
const moderation = createServer((request, response) => {
  request.resume()
  request.on('end', () => {
    moderationCalls++
    response.setHeader('content-type', 'application/json')
    response.end(JSON.stringify({ results: [{ flagged: false, categories: {} }] }))
  })
})
let moderationUrl: string
let devnet: Devnet
beforeAll(async () => {
  await new Promise<void>((resolve) => moderation.listen(0, '127.0.0.1', resolve))
  moderationUrl = `http://127.0.0.1:${(moderation.address() as { port: number }).port}/v1`
  devnet = await sharedDevnet({ tempo: false })
}, 60_000)
afterAll(async () => {
  await devnet?.stop()
  await new Promise<void>((resolve) => moderation.close(() => resolve()))
})

const enterAnonymously = (venue: Venue) =>
  postJson(`${venue.url}/api/personas`, {
    handle: uniqueHandle('budget'),
    model: 'm',
    persona_age: '18+',
    heart: HEART,
  })

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'outbound budgets on $name',
  ({ open }) => {
    let venue: Venue
    // Each client 4 calls an hour, all free requests 7, paid ones 50; an admission costs 2 (the
    // chaperone's moderation call and the heart's embedding), a post 1.
    const { get } = useTestVenue(
      open,
      (started) => {
        venue = started
      },
      {
        get devnet() {
          return devnet
        },
        env: {
          get MODERATION_URL() {
            return moderationUrl
          },
          SAFETY_TIMEOUT_MS: '2000',
          VENUE_OUTBOUND_BUDGET_PER_CLIENT: '4/3600',
          VENUE_OUTBOUND_BUDGET_GLOBAL: '7/3600',
          VENUE_OUTBOUND_BUDGET_PAID: '50/3600',
          METRICS_TOKEN,
        },
      },
    )
    const post = (persona: { id: number; credential: string }, body: string) =>
      postJson(
        `${venue.url}/api/boards/seeking`,
        { personaId: persona.id, body },
        { authorization: `Bearer ${persona.credential}` },
      )
    const admit = async () => {
      const { agent, answer } = await admitPersona(venue)
      expect(answer.status).toBe(200)
      return { id: answer.json.personaId as number, credential: agent.credential }
    }
    const written = async () =>
      (
        await venue.deps.database.client.query(
          `SELECT (SELECT count(*)::int FROM personas) AS personas,
                (SELECT count(*)::int FROM posts) AS posts,
                (SELECT coalesce(sum(count), 0)::int FROM day_counters) AS counters`,
          [],
        )
      ).rows[0]
    let first: { id: number; credential: string }

    it('a client past its own budget gets 503 with Retry-After; the check never runs, nothing is written', async () => {
      const calls = moderationCalls
      first = await admit()
      expect((await post(first, 'Looking for a slow reader of old maps.')).status).toBe(201)
      expect((await post(first, 'Looking for a tide pool explorer.')).status).toBe(201)
      expect(moderationCalls).toBe(calls + 3)
      const before = await written()
      const refused = await post(first, 'Looking for a night sky watcher.')
      expect(refused.status).toBe(503)
      const retryAfter = Number(refused.headers.get('retry-after'))
      expect(retryAfter).toBeGreaterThan(0)
      expect(retryAfter).toBeLessThanOrEqual(3600)
      expect(refused.json).toEqual({
        error: expect.stringContaining('outbound budget spent'),
        budget: 'outbound',
        retryAfter,
      })
      expect(moderationCalls).toBe(calls + 3)
      expect(await written()).toEqual(before)
    })

    it('all free requests past the global budget: 503 for every free client, nothing admitted or posted', async () => {
      const second = await admit()
      expect((await post(second, 'Looking for a long walk on a cold beach.')).status).toBe(201)
      const calls = moderationCalls
      const before = await written()
      const refusedPost = await post(second, 'Looking for a quiet museum morning.')
      expect(refusedPost.status).toBe(503)
      expect(refusedPost.json).toMatchObject({ budget: 'outbound-global' })
      expect(Number(refusedPost.headers.get('retry-after'))).toBeGreaterThan(0)
      const refusedPersona = await enterAnonymously(venue)
      expect(refusedPersona).toMatchObject({ status: 503, json: { budget: 'outbound-global' } })
      expect(moderationCalls).toBe(calls)
      expect(await written()).toEqual(before)
    })

    it('a paid request draws on the payers’ budget: the featured post is served while free ones are refused', async () => {
      const calls = moderationCalls
      const response = await devnet.x402Fetch(devnet.accounts.payer)(
        `${venue.url}/api/featured/post`,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${first.credential}`,
          },
          body: JSON.stringify({
            personaId: first.id,
            board: 'seeking',
            body: 'A calm sailor.',
          }),
        },
      )
      expect(response.status).toBe(201)
      // The check before the 402 and again with the payment, both on the payers' budget.
      expect(moderationCalls).toBe(calls + 2)
    })

    it('/admin.json and /metrics show the budgets', async () => {
      const snapshot = (await get('/admin.json', operator)).json
      expect(snapshot.outbound_budgets).toEqual({
        global: {
          points: 7,
          window_seconds: 3600,
          remaining: 0,
          reset_seconds: expect.any(Number),
        },
        paid: {
          points: 50,
          window_seconds: 3600,
          remaining: 48,
          reset_seconds: expect.any(Number),
        },
        per_client: { points: 4, window_seconds: 3600 },
      })
      const metrics = (await get('/metrics', { authorization: `Bearer ${METRICS_TOKEN}` })).text
      const value = (pattern: RegExp) => Number(pattern.exec(metrics)?.[1])
      expect(value(/outbound_budget_remaining\{[^}]*budget="outbound-global"[^}]*\} (\d+)/)).toBe(0)
      expect(value(/outbound_budget_remaining\{[^}]*budget="outbound-paid"[^}]*\} (\d+)/)).toBe(48)
      expect(
        value(/outbound_calls_total\{[^}]*target="moderation",outcome="ok"[^}]*\} (\d+)/),
      ).toBe(7)
      expect(
        value(/outbound_calls_total\{[^}]*target="embeddings",outcome="ok"[^}]*\} (\d+)/),
      ).toBeGreaterThanOrEqual(1)
      expect(value(/rate_limited_total\{[^}]*limit="outbound-global"[^}]*\} (\d+)/)).toBe(2)
      expect(
        value(/rate_limited_total\{[^}]*limit="outbound"[^}]*\} (\d+)/),
      ).toBeGreaterThanOrEqual(1)
    })
  },
)

// Real PostgreSQL only: the budget's counters are in the table every replica shares.
describe.skipIf(!TEST_DATABASE_URL)('one outbound budget for two replicas on PostgreSQL', () => {
  let replicas: Venue[] = []
  let drop: () => Promise<void>
  beforeAll(async () => {
    const database = await createTestDatabase(TEST_DATABASE_URL!, VENUE_TEST_DATABASE)
    drop = database.drop
    // Without a moderation endpoint an anonymous admission costs one call: its embedding.
    const env = { VENUE_OUTBOUND_BUDGET_GLOBAL: '3/3600' }
    replicas = [
      await startTestVenue({ databaseUrl: database.url, env }),
      await startTestVenue({ databaseUrl: database.url, env }),
    ]
  }, 60_000)
  afterAll(async () => {
    for (const replica of replicas) await replica.close()
    await drop?.()
  })

  it('what one replica spends, the other cannot spend again', async () => {
    const [a, b] = replicas as [Venue, Venue]
    const statuses = []
    for (const replica of [a, b, a, b, a]) statuses.push((await enterAnonymously(replica)).status)
    expect(statuses).toEqual([200, 200, 200, 503, 503])
    const snapshot = await fetch(`${b.url}/admin.json`, { headers: operator })
    expect((await snapshot.json()).outbound_budgets.global).toMatchObject({
      points: 3,
      remaining: 0,
    })
  })
})

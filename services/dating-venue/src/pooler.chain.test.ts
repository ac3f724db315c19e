import type { Devnet } from '@agents/devnet'
import { sharedDevnet } from '@agents/devnet/testing'
import { postJson } from '@agents/service-kit'
import { createTestDatabase, throughPooler } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from './start.ts'
import { admitPersona } from './test-helpers.ts'
import { startTestVenue, TEST_ADMIN_TOKEN, TEST_DATABASE_URL } from './testing.ts'

// PgBouncer in transaction mode in front of the test server, as hosted
// PostgreSQL puts one (scripts/ci/start-pgbouncer.sh); skipped without it.
const POOLER = process.env.TEST_PGBOUNCER_URL

// Two venues whose DATABASE_URL is the pooler, migrating an empty database
// through DATABASE_DIRECT_URL at once; the beat's session lock (the kit's
// withLock) on the direct URL, a paid item and the boards on the pooled one.
describe.skipIf(!TEST_DATABASE_URL || !POOLER)('two venues behind a transaction pooler', () => {
  let devnet: Devnet
  let replicas: Venue[] = []
  let drop: () => Promise<void>

  beforeAll(async () => {
    devnet = await sharedDevnet()
    const database = await createTestDatabase(TEST_DATABASE_URL!)
    drop = database.drop
    const databaseUrl = throughPooler(POOLER!, database.url)
    const env = {
      DATABASE_POOL_MODE: 'transaction',
      DATABASE_DIRECT_URL: database.url,
      VENUE_FEATURED_SLOTS: '2',
    }
    replicas = await Promise.all([
      startTestVenue({ devnet, databaseUrl, env }),
      startTestVenue({ devnet, databaseUrl, env }),
    ])
  }, 120_000)
  afterAll(async () => {
    for (const replica of replicas) await replica.close()
    await drop?.()
    await devnet?.stop()
  })

  const beat = (venue: Venue, cycleId: string) =>
    postJson(
      `${venue.url}/admin/actions/beat`,
      { cycleId },
      {
        authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
      },
    )

  it('personas entered on both replicas; beats asked of both at once run one at a time', async () => {
    const entered = await Promise.all(
      Array.from({ length: 6 }, (_, n) => admitPersona(replicas[n % 2]!)),
    )
    expect(entered.map(({ answer }) => answer.status)).toEqual([200, 200, 200, 200, 200, 200])
    const answers = await Promise.all(replicas.map((venue) => beat(venue, 'pooled-beat-1')))
    const statuses = answers.map((answer) => answer.status).sort()
    // Both ran one after the other, or one found the other's lock held (409).
    expect([
      [200, 200],
      [200, 409],
    ]).toContainEqual(statuses)
    const formed = answers.reduce((sum, answer) => sum + (answer.json.created ?? 0), 0)
    const couples = await replicas[0]!.deps.database.client.query(
      `SELECT count(*)::int AS n FROM couples WHERE cycle_id = 'pooled-beat-1'`,
    )
    // No pair formed twice: the cycle's couples are what the beats say they created.
    expect((couples.rows[0] as { n: number }).n).toBe(formed)
    expect(formed).toBeGreaterThan(0)
  })

  it('a featured post paid on one replica shows on the other', async () => {
    const admitted = await admitPersona(replicas[0]!)
    const personaId = admitted.answer.json.personaId as number
    const body = { personaId, board: 'seeking', body: 'Pooled: a calm sailor seeks a crew.' }
    const payee = () => devnet.usdcBalance(devnet.accounts.payee)
    const before = await payee()
    const paid = await devnet.x402Fetch(devnet.accounts.payer)(
      `${replicas[1]!.url}/api/featured/post`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${admitted.agent.credential}`,
        },
        body: JSON.stringify(body),
      },
    )
    expect(paid.status, await paid.clone().text()).toBe(201)
    expect(await payee()).toBe(before + 50_000_000n)
    const board = await fetch(`${replicas[0]!.url}/api/boards/seeking`).then((r) => r.json())
    expect(board[0]).toMatchObject({ body: body.body, featured: true })
    // The reconcilers (session locks on the direct URL) pass side by side without failing.
    const passes = await Promise.all(replicas.map((venue) => venue.reconcileNow()))
    expect(passes.some((pass) => pass !== undefined)).toBe(true)
  })
})

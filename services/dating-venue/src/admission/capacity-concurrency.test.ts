import { postJson } from '@agents/service-kit'
import { createTestDatabase } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { createAgent, HEART } from '../test-helpers.ts'
import { startTestVenue, TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'
import { admitPending } from './admission.ts'

const server = TEST_DATABASE_URL

// Real PostgreSQL only: PGlite has one connection and cannot interleave.
describe.skipIf(!server)('the cap under concurrency on PostgreSQL, two replicas', () => {
  let replicas: Venue[] = []
  let drop: () => Promise<void>
  beforeAll(async () => {
    const database = await createTestDatabase(server!, VENUE_TEST_DATABASE)
    drop = database.drop
    const env = { VENUE_CAP: '50', DATABASE_POOL_MAX: '30' }
    replicas = [
      await startTestVenue({ databaseUrl: database.url, env }),
      await startTestVenue({ databaseUrl: database.url, env }),
    ]
  }, 60_000)
  afterAll(async () => {
    for (const replica of replicas) await replica.close()
    await drop?.()
  })

  it('200 parallel admissions against a cap of 50: exactly 50 admitted, the rest pending, none lost', async () => {
    const agents = await Promise.all(
      Array.from({ length: 200 }, (_, n) => createAgent(replicas[n % 2]!)),
    )
    const answers = await Promise.all(
      agents.map((agent, n) =>
        postJson(
          `${replicas[n % 2]!.url}/api/personas`,
          { handle: `crowd-${n}`, model: 'm', persona_age: '18+', heart: HEART },
          { authorization: `Bearer ${agent.credential}` },
        ),
      ),
    )
    const admitted = answers.filter((answer) => answer.status === 200)
    const pending = answers.filter(
      (answer) => answer.status === 422 && answer.json.capReached === true,
    )
    expect(admitted).toHaveLength(50)
    expect(pending).toHaveLength(150)
    const { rows } = await replicas[0]!.deps.database.client.query(
      `SELECT status, count(*)::int AS n FROM personas GROUP BY status ORDER BY status`,
    )
    expect(rows).toEqual([
      { status: 'admitted', n: 50 },
      { status: 'pending', n: 150 },
    ])
    const { rows: seats } = await replicas[0]!.deps.database.client.query(
      'SELECT used FROM capacity',
    )
    expect(seats).toEqual([{ used: 50 }])

    // Room for 10 more: the 10 oldest pending are admitted, in arrival order, once, even by two replicas at once.
    await replicas[0]!.deps.settings.set('cap', 60)
    const [a, b] = await Promise.all(replicas.map((replica) => admitPending(replica.deps)))
    const both = [...a!, ...b!].sort((x, y) => x - y)
    const oldest = pending
      .map((answer) => answer.json.personaId as number)
      .sort((x, y) => x - y)
      .slice(0, 10)
    expect(both).toEqual(oldest)
  }, 60_000)
})

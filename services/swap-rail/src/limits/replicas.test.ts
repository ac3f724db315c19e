import { startRoundRobinProxy } from '@agents/service-kit'
import { createTestDatabase } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SwapRail } from '../start.ts'
import { SWAP_TEST_DATABASE, startTestSwapRail, TEST_DATABASE_URL } from '../testing.ts'

const ENV = {
  TRUST_FORWARDED_FOR: '1',
  RATE_LIMIT_READ: '6/60',
  RATE_LIMIT_ANONYMOUS_WRITE: '40/60',
  SWAP_MAX_OPEN_OFFERS_PER_SELLER: '3',
  SWAP_MAX_OPEN_INTENTS_PER_CLIENT: '3',
}

// Two replicas on one PostgreSQL behind a round-robin proxy that appends the
// client's address to X-Forwarded-For, as a load balancer does.
describe.skipIf(!TEST_DATABASE_URL)('two replicas behind a load balancer', () => {
  let replicas: SwapRail[] = []
  let proxy: Awaited<ReturnType<typeof startRoundRobinProxy>>
  let drop: () => Promise<void>
  beforeAll(async () => {
    const database = await createTestDatabase(TEST_DATABASE_URL!, SWAP_TEST_DATABASE)
    drop = database.drop
    replicas = [
      await startTestSwapRail({ databaseUrl: database.url, env: ENV }),
      await startTestSwapRail({ databaseUrl: database.url, env: ENV }),
    ]
    proxy = await startRoundRobinProxy(replicas.map((replica) => replica.url))
  }, 60_000)
  afterAll(async () => {
    await proxy?.close()
    for (const replica of replicas) await replica.close()
    await drop?.()
  })

  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${proxy.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    return { status: response.status, json: (await response.json()) as { limit?: string } }
  }

  it('allow what one allows: the read limit counted across both', async () => {
    const statuses: number[] = []
    for (let index = 0; index < 8; index++)
      statuses.push((await fetch(`${proxy.url}/v1/offers`)).status)
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429])
  })

  it('the open-offers bound of a payTo holds for offers posted at once through both', async () => {
    const payTo = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        post('/v1/offers', {
          endpoint: 'https://seller.example/v1',
          payTo,
          model: `replicas-offer-${index}`,
          mtok: 1,
          priceUsd: '1',
        }),
      ),
    )
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(3)
    const refused = answers.filter((answer) => answer.status === 429)
    expect(refused).toHaveLength(9)
    expect(new Set(refused.map((answer) => answer.json.limit))).toEqual(
      new Set(['open-offers-per-seller']),
    )
  })

  it('the open-intents bound of a client holds for intents filed at once through both', async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        post('/v1/intents', { model: `replicas-intent-${index}`, mtok: 1, maxPriceUsd: '1' }),
      ),
    )
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(3)
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(9)
    const { rows } = await replicas[0]!.deps.database.client.query(
      `SELECT count(*)::int AS n FROM swap_intents WHERE model LIKE 'replicas-intent-%'`,
    )
    expect((rows[0] as { n: number }).n).toBe(3)
  })
})

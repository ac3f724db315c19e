import { createTestDatabase } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SwapRail } from './start.ts'
import { SWAP_TEST_DATABASE, startTestSwapRail, TEST_DATABASE_URL } from './testing.ts'

const server = TEST_DATABASE_URL
const PAY_TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'

// Real PostgreSQL only: PGlite is one connection, so it cannot interleave.
describe.skipIf(!server)('under concurrency on PostgreSQL, two replicas', () => {
  let replicas: SwapRail[] = []
  let drop: () => Promise<void>

  beforeAll(async () => {
    const database = await createTestDatabase(server!, SWAP_TEST_DATABASE)
    drop = database.drop
    // This test floods from one address on purpose: its limits are raised (the book
    // bounds stay on, high, so their locked path is what runs under the contention).
    const env = {
      RATE_LIMIT_ANONYMOUS_WRITE: '1000/60',
      SWAP_MAX_OPEN_OFFERS_PER_SELLER: '1000',
      SWAP_MAX_OPEN_INTENTS_PER_CLIENT: '1000',
    }
    replicas = [
      await startTestSwapRail({ databaseUrl: database.url, env }),
      await startTestSwapRail({ databaseUrl: database.url, env }),
    ]
  })
  afterAll(async () => {
    for (const replica of replicas) await replica.close()
    await drop?.()
  })

  const post = async (index: number, path: string, body: unknown) => {
    const response = await fetch(`${replicas[index % replicas.length]!.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    // biome-ignore lint/suspicious/noExplicitAny: tests read JSON by path
    return { status: response.status, json: (await response.json()) as any }
  }
  const query = async (text: string) =>
    (await replicas[0]!.deps.database.client.query(text)).rows as Array<Record<string, unknown>>

  /** Every invariant a buyer and a seller rely on, straight from the tables. */
  const checkBook = async () => {
    const oversold = await query(`
      SELECT o.id FROM swap_offers o
      LEFT JOIN swap_matches m ON m.offer_id = o.id AND m.status <> 'expired'
      GROUP BY o.id
      HAVING o.mtok - min(o.remaining_mtok) <> coalesce(sum(m.mtok), 0) OR min(o.remaining_mtok) < 0`)
    const [counts] = await query(`
      SELECT count(*)::int AS matches, count(DISTINCT intent_id)::int AS intents FROM swap_matches`)
    const [mismatched] = await query(`
      SELECT count(*)::int AS n FROM swap_intents i
      WHERE (i.status = 'matched') <> EXISTS (SELECT 1 FROM swap_matches m WHERE m.intent_id = i.id)`)
    return {
      oversold: oversold.length,
      matches: counts!.matches as number,
      intents: counts!.intents as number,
      mismatchedIntents: mismatched!.n as number,
    }
  }

  it('100 parallel intents against limited capacity: no offer oversold, every match unique', async () => {
    const model = 'contended'
    // 5 offers x 7 MTok = 35 MTok for about 200 MTok of demand.
    for (let n = 0; n < 5; n++) {
      const offer = await post(n, '/v1/offers', {
        endpoint: `https://seller-${n}.example/v1`,
        payTo: PAY_TO,
        model,
        mtok: 7,
        priceUsd: `${1 + n / 10}`,
      })
      expect(offer.status).toBe(201)
    }
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, n) =>
        post(n, '/v1/intents', { model, mtok: 1 + (n % 3), maxPriceUsd: '5' }),
      ),
    )
    expect(answers.every((answer) => answer.status === 201)).toBe(true)
    const matched = answers.filter((answer) => answer.json.match)
    const sold = matched.reduce((sum, answer) => sum + answer.json.match.mtok, 0)
    expect(sold).toBeLessThanOrEqual(35)
    // Demand exceeds supply, so all capacity that any intent could take is taken.
    expect(sold).toBeGreaterThanOrEqual(33)
    expect(new Set(matched.map((answer) => answer.json.match.id)).size).toBe(matched.length)
    expect(await checkBook()).toMatchObject({ oversold: 0, mismatchedIntents: 0 })
    const { matches, intents } = await checkBook()
    expect(matches).toBe(intents)
  })

  it('offers and intents arriving together: each intent matched once, no offer oversold', async () => {
    const model = 'two-sided'
    const work = Array.from({ length: 120 }, (_, n) =>
      n % 4 === 0
        ? post(n, '/v1/offers', {
            endpoint: `https://seller-${n}.example/v1`,
            payTo: PAY_TO,
            model,
            mtok: 4,
            priceUsd: '1',
          })
        : post(n, '/v1/intents', { model, mtok: 1 + (n % 2), maxPriceUsd: '1' }),
    )
    const answers = await Promise.all(work)
    expect(answers.filter((answer) => answer.status !== 201)).toEqual([])
    // Both replicas sweep at once: one takes the lock, and together they match what is left.
    await Promise.all(replicas.map((replica) => replica.sweepNow()))
    const [left] = await query(`
      SELECT count(*)::int AS n FROM swap_intents i WHERE i.model = '${model}' AND i.status = 'open'
        AND EXISTS (SELECT 1 FROM swap_offers o WHERE o.model = i.model AND o.status = 'open'
                    AND o.remaining_mtok >= i.mtok)`)
    expect(left!.n).toBe(0)
    expect(await checkBook()).toMatchObject({ oversold: 0, mismatchedIntents: 0 })
  })

  it('two sweeps at once: exactly one replica does the expiry work', async () => {
    const results = await Promise.all(replicas.map((replica) => replica.sweepNow()))
    expect(results.filter((result) => result.ran).length).toBeGreaterThanOrEqual(1)
    const model = 'expiring'
    await post(0, '/v1/offers', {
      endpoint: 'https://seller.example/v1',
      payTo: PAY_TO,
      model,
      mtok: 3,
      priceUsd: '1',
    })
    for (let n = 0; n < 3; n++) await post(n, '/v1/intents', { model, mtok: 1, maxPriceUsd: '1' })
    await query(
      `UPDATE swap_matches SET pay_by = now() - interval '1 second' WHERE status = 'awaiting_payment'`,
    )
    const swept = await Promise.all(replicas.map((replica) => replica.sweepNow()))
    const expired = swept.reduce((sum, result) => sum + (result.ran ? result.expiredMatches : 0), 0)
    const [counted] = await query(
      `SELECT count(*)::int AS n FROM swap_matches WHERE status = 'expired'`,
    )
    expect(expired).toBe(counted!.n)
    expect(await checkBook()).toMatchObject({ oversold: 0 })
  })
})

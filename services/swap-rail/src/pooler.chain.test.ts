import type { Devnet } from '@agents/devnet'
import { sharedDevnet } from '@agents/devnet/testing'
import { postJson } from '@agents/service-kit'
import { createTestDatabase, throughPooler } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SwapRail } from './start.ts'
import { startTestSwapRail, TEST_DATABASE_URL } from './testing.ts'

// PgBouncer in transaction mode in front of the test server, as hosted
// PostgreSQL puts one (scripts/ci/start-pgbouncer.sh); skipped without it.
const POOLER = process.env.TEST_PGBOUNCER_URL

// Two replicas whose DATABASE_URL is the pooler, migrating an empty database
// through DATABASE_DIRECT_URL at once, then the rail's stateful and paid
// paths through real HTTP on both.
describe.skipIf(!TEST_DATABASE_URL || !POOLER)(
  'two rail replicas behind a transaction pooler',
  () => {
    let devnet: Devnet
    let replicas: SwapRail[] = []
    let drop: () => Promise<void>

    beforeAll(async () => {
      devnet = await sharedDevnet()
      const database = await createTestDatabase(TEST_DATABASE_URL!)
      drop = database.drop
      const env = {
        DATABASE_POOL_MODE: 'transaction',
        DATABASE_DIRECT_URL: database.url,
        RATE_LIMIT_ANONYMOUS_WRITE: '1000/60',
        SWAP_MAX_OPEN_OFFERS_PER_SELLER: '1000',
        SWAP_MAX_OPEN_INTENTS_PER_CLIENT: '1000',
      }
      const databaseUrl = throughPooler(POOLER!, database.url)
      replicas = await Promise.all([
        startTestSwapRail({ devnet, databaseUrl, env }),
        startTestSwapRail({ devnet, databaseUrl, env }),
      ])
    }, 60_000)
    afterAll(async () => {
      for (const replica of replicas) await replica.close()
      await drop?.()
      await devnet?.stop()
    })

    const rail = (index: number) => replicas[index % replicas.length]!.url
    const query = async (text: string) =>
      (await replicas[0]!.deps.database.client.query(text)).rows as Array<Record<string, number>>

    it('parallel intents on both replicas: no offer oversold, every intent matched at most once', async () => {
      const model = 'pooled-contended'
      for (let n = 0; n < 5; n++) {
        const offer = await postJson(`${rail(n)}/v1/offers`, {
          endpoint: `https://seller-${n}.example/v1`,
          payTo: devnet.accounts.payee2,
          model,
          mtok: 7,
          priceUsd: `${1 + n / 10}`,
        })
        expect(offer.status).toBe(201)
      }
      const answers = await Promise.all(
        Array.from({ length: 80 }, (_, n) =>
          postJson(`${rail(n)}/v1/intents`, { model, mtok: 1 + (n % 3), maxPriceUsd: '2' }),
        ),
      )
      expect(answers.map((answer) => answer.status).filter((status) => status !== 201)).toEqual([])
      const matched = answers.filter((answer) => answer.json.match)
      expect(matched.length).toBeGreaterThan(0)
      const [oversold] = await query(`
      SELECT count(*)::int AS n FROM (
        SELECT o.id FROM swap_offers o
        LEFT JOIN swap_matches m ON m.offer_id = o.id AND m.status <> 'expired'
        WHERE o.model = '${model}'
        GROUP BY o.id
        HAVING o.mtok - min(o.remaining_mtok) <> coalesce(sum(m.mtok), 0) OR min(o.remaining_mtok) < 0
      ) broken`)
      expect(oversold!.n).toBe(0)
      const [sold] = await query(`
      SELECT coalesce(sum(m.mtok), 0)::int AS n FROM swap_matches m
      JOIN swap_offers o ON o.id = m.offer_id WHERE o.model = '${model}'`)
      expect(sold!.n).toBe(35)
      // The sweep (a transaction-level lock) runs on either replica.
      const swept = await Promise.all(replicas.map((replica) => replica.sweepNow()))
      expect(swept.some((pass) => pass.ran)).toBe(true)
    })

    it('x402: a match filed on one replica is paid once on the other, its grant read back on the first', async () => {
      const model = 'pooled-paid'
      const offer = await postJson(`${rail(0)}/v1/offers`, {
        endpoint: 'https://seller.example/v1',
        payTo: devnet.accounts.payee2,
        model,
        mtok: 2,
        priceUsd: '0.25',
      })
      expect(offer.status).toBe(201)
      const intent = await postJson(`${rail(0)}/v1/intents`, { model, mtok: 1, maxPriceUsd: '1' })
      const match = intent.json.match
      expect(match).toMatchObject({ status: 'awaiting_payment', gross: '250000' })
      const splitBefore = await devnet.usdcBalance(match.splitAddress)
      const paid = await devnet.x402Fetch()(`${rail(1)}/v1/matches/${match.id}/pay`, {
        method: 'POST',
      })
      expect(paid.status).toBe(200)
      expect((await paid.json()).status).toBe('paid')
      expect(await devnet.usdcBalance(match.splitAddress)).toBe(splitBefore + 250_000n)
      // Paid once: refused on either replica before anything is settled.
      for (const index of [0, 1]) {
        const again = await fetch(`${rail(index)}/v1/matches/${match.id}/pay`, { method: 'POST' })
        expect(again.status).toBe(409)
      }
      const read = await fetch(`${rail(0)}/v1/matches/${match.id}`).then((r) => r.json())
      expect(read).toMatchObject({ status: 'paid', grant: { model, mtok: 1 } })
      // The reconcilers (session locks on the direct URL) run side by side, one at a time.
      const passes = await Promise.all(replicas.map((replica) => replica.reconcileNow()))
      expect(passes.filter((pass) => pass !== undefined).length).toBeGreaterThanOrEqual(1)
    })
  },
)

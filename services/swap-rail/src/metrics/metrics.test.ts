import { testBackends } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SwapRail } from '../start.ts'
import { SWAP_TEST_DATABASE, startTestSwapRail, TEST_DATABASE_URL } from '../testing.ts'

const TOKEN = 'metrics-token-for-tests'

describe.each(testBackends(TEST_DATABASE_URL, SWAP_TEST_DATABASE))(
  'GET /metrics on $name',
  ({ open }) => {
    let rail: SwapRail
    let drop: () => Promise<void>
    beforeAll(async () => {
      const database = await open()
      drop = database.drop
      rail = await startTestSwapRail({
        databaseUrl: database.url,
        env: { METRICS_TOKEN: TOKEN, SWAP_MAX_OPEN_INTENTS_PER_CLIENT: '1' },
      })
    }, 60_000)
    afterAll(async () => {
      await rail?.close()
      await drop?.()
    })

    const scrape = async () => {
      const answer = await fetch(`${rail.url}/metrics`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      })
      expect(answer.status).toBe(200)
      return answer.text()
    }
    /** One sample's value: the metric with all these labels (and `service`), 0 when absent. */
    const value = (text: string, name: string, labels: Record<string, string> = {}) => {
      for (const line of text.split('\n')) {
        const match = /^(\w+)\{([^}]*)\} (\S+)$/.exec(line)
        if (!match || match[1] !== name) continue
        if (
          Object.entries(labels).every(([label, want]) => match[2]!.includes(`${label}="${want}"`))
        )
          return Number(match[3])
      }
      return 0
    }
    const post = (path: string, body: unknown) =>
      fetch(`${rail.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })

    it('refuses a scrape without the operator’s token', async () => {
      const bare = await fetch(`${rail.url}/metrics`)
      expect(bare.status).toBe(401)
      expect(await bare.json()).toEqual({ error: expect.any(String) })
      const wrong = await fetch(`${rail.url}/metrics`, {
        headers: { authorization: 'Bearer wrong' },
      })
      expect(wrong.status).toBe(401)
    })

    it('its numbers move with the requests: the book, requests by route, refusals by limit', async () => {
      const before = await scrape()
      expect(value(before, 'swap_open_offers')).toBe(0)
      const posted = { method: 'POST', route: '/v1/offers', status: '201' }
      for (let index = 0; index < 2; index++)
        expect(
          (
            await post('/v1/offers', {
              endpoint: 'https://seller.example/v1',
              payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
              model: `metrics-${index}`,
              mtok: 1,
              priceUsd: '1',
            })
          ).status,
        ).toBe(201)
      expect(
        (await post('/v1/intents', { model: 'metrics-none', mtok: 1, maxPriceUsd: '1' })).status,
      ).toBe(201)
      expect(
        (await post('/v1/intents', { model: 'metrics-none', mtok: 1, maxPriceUsd: '1' })).status,
      ).toBe(429)
      const after = await scrape()
      expect(value(after, 'swap_open_offers')).toBe(2)
      expect(value(after, 'swap_open_intents')).toBe(1)
      expect(value(after, 'swap_unpaid_matches')).toBe(0)
      expect(value(after, 'http_requests_total', posted)).toBe(
        value(before, 'http_requests_total', posted) + 2,
      )
      expect(value(after, 'rate_limited_total', { limit: 'open-intents' })).toBe(1)
    })

    it('the payment ledger by state, its oldest unresolved row, and the reconciler’s passes', async () => {
      const runs = (text: string) =>
        value(text, 'payment_reconciler_runs_total', { outcome: 'ran' })
      const before = await scrape()
      for (const state of ['claimed', 'settling', 'settled', 'failed', 'unknown'])
        expect(before).toMatch(new RegExp(`payment_ledger_rows\\{[^}]*state="${state}"[^}]*\\} 0`))
      expect(value(before, 'payment_ledger_oldest_unresolved_seconds')).toBe(0)
      // A payment whose settle answer was lost 2 minutes ago (of a kind no product claims: the reconciler leaves it).
      await rail.deps.database.client.query(
        `INSERT INTO payment_ledger (reference, kind, request_key, state, rail, network, amount, pay_to, proof, created_at)
       VALUES ('metrics-ref', 'metrics-test', 'k', 'unknown', 'x402', 'eip155:8453', 1, '0x0', '{}'::jsonb, now() - interval '2 minutes')`,
      )
      await rail.reconcileNow()
      const after = await scrape()
      expect(value(after, 'payment_ledger_rows', { state: 'unknown' })).toBe(1)
      expect(value(after, 'payment_ledger_oldest_unresolved_seconds')).toBeGreaterThanOrEqual(120)
      expect(value(after, 'payment_ledger_oldest_unresolved_seconds')).toBeLessThan(180)
      expect(runs(after)).toBe(runs(before) + 1)
    })
  },
)

import type { RequirementV2 } from '@agents/payments'
import { paymentSignatureHeader } from '@agents/payments/testing'
import type { Target } from './target.ts'

/** Pay every Nth match (1: every loop); the other loops stop at reading the match. */
const payEvery = Math.max(1, Number(process.env.BENCH_RAIL_PAY_EVERY ?? 1))

/**
 * The swap rail: each loop the agent, as seller then buyer, reads the
 * model's cheapest offers, posts an offer (1 MTok at 0.50), posts an intent
 * that matches it, pays the match on the devnet (x402 v2, the devnet payer)
 * and reads the paid match (its grant).
 */
export const railTarget: Target = {
  service: 'swap-rail',
  stateful: true,
  flood: 'rail-offers',
  floodTakes: 'offers accepted',
  intervalMs: Number(process.env.BENCH_RAIL_INTERVAL_MS ?? 250),
  env: (context) => ({
    DATA_DIR: context.dataDir,
    ...(context.databaseUrl ? { DATABASE_URL: context.databaseUrl } : {}),
  }),
  prepare: async (context) => {
    const { payer, payee2 } = context.devnet.accounts
    return {
      loop: async (call, n) => {
        await call('list offers', `/v1/offers?model=${context.model}&limit=10`)
        const offer = await call('post offer', '/v1/offers', {
          body: {
            endpoint: 'https://seller.example.com/v1',
            payTo: payee2,
            model: context.model,
            mtok: 1,
            priceUsd: '0.5',
          },
          expect: [201],
        })
        if (!offer.served) return
        const intent = await call('post intent', '/v1/intents', {
          body: { model: context.model, mtok: 1, maxPriceUsd: '1', buyer: payer.address },
          expect: [201],
          // The agent's own offer is there to match: an intent left waiting is a failure.
          check: (json) => Boolean(json.match),
        })
        const match = intent.json.match as
          | { id: string; challenge: { x402: { accepts: RequirementV2[] } } }
          | null
          | undefined
        if (!match) return
        if (n % payEvery === 0) {
          const header = await paymentSignatureHeader(payer, match.challenge.x402.accepts[0]!)
          await call('pay match', `/v1/matches/${match.id}/pay`, {
            method: 'POST',
            headers: { 'payment-signature': header },
          })
        }
        await call('read match', `/v1/matches/${match.id}`)
      },
    }
  },
}

import { benchConfig } from '@agents/bench-config'
import type { RequirementV2 } from '@agents/payments'
import { paymentSignatureHeader } from '@agents/payments/testing'
import type { Call } from './agent-window.ts'
import type { Target } from './target.ts'

/** A trade every this many loops (every 3 s at the default pace). */
const TRADE_EVERY = 6

type Match = { id: string; challenge: { x402: { accepts: RequirementV2[] } } }

/**
 * The swap rail. Each loop (every 500 ms) the agent reads the model's
 * cheapest offers and its latest match (its grant); every 6th loop it
 * trades, as seller then buyer: posts an offer (1 MTok at 0.50), posts an
 * intent that matches it and pays the match on the devnet (x402 v2, the
 * devnet payer). That is 40 offers and intents a minute (the
 * `anonymous-write` limit is 60), 20 payments (`challenge`: 60) and 240
 * reads (`read`: 600).
 */
export const railTarget: Target = {
  service: 'swap-rail',
  stateful: true,
  flood: 'rail-offers',
  floodTakes: 'offers accepted',
  intervalMs: benchConfig.abuse.railIntervalMs,
  env: (context) => ({
    DATA_DIR: context.dataDir,
    ...(context.databaseUrl ? { DATABASE_URL: context.databaseUrl } : {}),
  }),
  prepare: async (context) => {
    const { payer, payee2 } = context.devnet.accounts
    let latest: string | undefined
    const trade = async (call: Call) => {
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
      const match = intent.json.match as Match | null | undefined
      if (!match) return
      const header = await paymentSignatureHeader(payer, match.challenge.x402.accepts[0]!)
      const paid = await call('pay match', `/v1/matches/${match.id}/pay`, {
        method: 'POST',
        headers: { 'payment-signature': header },
      })
      if (paid.served) latest = match.id
    }
    return {
      loop: async (call, n) => {
        await call('list offers', `/v1/offers?model=${context.model}&limit=10`)
        if (n % TRADE_EVERY === 0) await trade(call)
        if (latest)
          await call('read match', `/v1/matches/${latest}`, {
            check: (json) => Boolean(json.grant),
          })
      },
    }
  },
}

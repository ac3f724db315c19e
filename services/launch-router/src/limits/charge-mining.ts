import {
  type Client,
  type Refusal,
  refusalOf,
  type TakeLimit,
  TooManyRequests,
} from '@agents/service-kit'
import type { MiningCharge } from '../payload/mine-salt-cached.ts'

/**
 * The client's `mining` budget, in worker-milliseconds: a new search needs
 * at least one left (else the 429 of the kit's limits, with the budget's
 * headers, returned before any work);
 * once done it is charged what it took, up to what the client had left, so
 * the budget is spent and the client waits for its window to end (a fixed
 * window: charging past the end would change nothing but count a served
 * request as refused). The miner runs one new search per client at a time,
 * so each admission sees what the last one cost.
 */
export const chargeMining = ({
  takeLimit,
  client,
}: {
  takeLimit: TakeLimit
  client: Client
}): MiningCharge => {
  let left = 0
  return {
    client: client.key,
    admit: async () => {
      const decision = await takeLimit('mining', 1)
      // The 429 the kit's limits answer (message, fields, headers), returned.
      if (!decision.allowed) return refusalOf(new TooManyRequests(decision)) as Refusal<429>
      left = decision.remaining
      return undefined
    },
    spend: async (workMs) => {
      // The one millisecond taken to admit the search is part of its cost.
      const cost = Math.min(Math.ceil(workMs) - 1, left)
      if (cost > 0) await takeLimit('mining', cost)
    },
  }
}

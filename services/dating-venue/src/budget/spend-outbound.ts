import { BudgetSpent, type Refusal, refusalOf, type Spender } from '@agents/service-kit'
import type { VenueDeps } from '../deps.ts'

/** The calls one request may make the venue send: safety checks, heart embeddings, model answers. */
export type OutboundCalls = { moderation?: number; embedding?: number; model?: number }

/**
 * Whose budget a request spends: one acting for an owner (who paid to file
 * a doc) draws on the payers' budget, its client's own budget counted too;
 * anything else on its client's budget and the global one.
 */
export const spenderFor = (client: string, { owned }: { owned: boolean }): Spender =>
  owned ? { paid: true, client } : { client }

/**
 * A paid route's checks (before the 402 and before the payment settles) and
 * its delivery draw on the payers' budget, with or without a payment on the
 * request: a payer gets its 402 and its answer however much free traffic
 * spent. One client asking for 402s is bounded by the route's request
 * limit (`challenge`).
 */
export const PAID: Spender = { paid: true }

/**
 * Spends a request's outbound calls before any of them is made and before
 * anything is written: a spent budget is returned as the 503 refusal of
 * `BudgetSpent` (with `Retry-After`), for the caller to return before it
 * makes a call or writes, so the request fails closed. Only calls that leave the
 * venue count against the shared budgets: a moderation call when
 * `MODERATION_URL` is set, an embedding when `EMBEDDINGS_URL` is, a model
 * answer when `MATCHMAKER_CHAT_URL` is. The local embedding model costs this
 * replica's CPU, not money: its embeddings count against the client's own
 * budget only (a payer's included).
 */
export const spendOutbound = async (
  deps: Pick<VenueDeps, 'budget' | 'chat'>,
  spender: Spender,
  { moderation = 0, embedding = 0, model = 0 }: OutboundCalls,
): Promise<Refusal<503> | undefined> => {
  const { outbound, remote } = deps.budget
  const outside =
    (remote.moderation ? moderation : 0) +
    (remote.embeddings ? embedding : 0) +
    (deps.chat ? model : 0)
  const local = remote.embeddings ? 0 : embedding
  try {
    if (outside > 0) await outbound.spend(spender, outside)
    if (local > 0 && spender.client !== undefined)
      await outbound.spend({ client: spender.client, global: false }, local)
  } catch (error) {
    // The kit's budget throws its 503; anything else (the store down) is a bug or an outage.
    if (error instanceof BudgetSpent) return refusalOf(error) as Refusal<503>
    throw error
  }
  return undefined
}

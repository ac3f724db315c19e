import { carriesPayment } from '@agents/payments'
import type { Spender } from '@agents/service-kit'
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
 * Whose budget a paid route's checks spend: a request carrying a payment
 * draws on the payers' budget (checked before the payment is settled or even
 * verified, so a payer is never charged for a call the budget refuses); one
 * without (it will be answered 402) is a free request like any other.
 */
export const spenderOfPaidRoute = (
  request: Request,
  client: string,
  { owned }: { owned: boolean },
): Spender => (carriesPayment(request) ? { paid: true } : spenderFor(client, { owned }))

/**
 * Spends a request's outbound calls before any of them is made and before
 * anything is written: a spent budget throws `BudgetSpent` (503 with
 * `Retry-After`), so the request fails closed. Only calls that leave the
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
) => {
  const { outbound, remote } = deps.budget
  const outside =
    (remote.moderation ? moderation : 0) +
    (remote.embeddings ? embedding : 0) +
    (deps.chat ? model : 0)
  if (outside > 0) await outbound.spend(spender, outside)
  const local = remote.embeddings ? 0 : embedding
  if (local > 0 && spender.client !== undefined)
    await outbound.spend({ client: spender.client, global: false }, local)
}

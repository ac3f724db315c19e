import { ApiError } from '../errors.ts'
import { describePolicy, type LimitPolicy } from './limit-policy.ts'
import { createLimits, type LimitDecision, type LimitStore } from './limits.ts'

/** Outbound calls a free or anonymous request may cause, per client and in all, and what payers may cause. */
export type BudgetPolicies = { perClient: LimitPolicy; global: LimitPolicy; paid: LimitPolicy }

/**
 * Who an outbound call is spent for: a free request's client (its own
 * budget, then the global one; `global: false` for work that costs this
 * replica's CPU rather than money, counted against the client's own budget
 * only), or a paid request (the payers' budget; naming its `client` counts
 * that client's own budget first, so one payer cannot spend it whole).
 */
export type Spender = { client: string; global?: boolean } | { paid: true; client?: string }

/** The 503 of a spent budget: the call is not made, the request fails closed. */
export class BudgetSpent extends ApiError {
  constructor(decision: LimitDecision) {
    super(
      503,
      `outbound budget spent (${decision.name}: ${describePolicy(decision.policy)}); retry in ${decision.resetSeconds} s`,
      { budget: decision.name, retryAfter: decision.resetSeconds },
      { 'Retry-After': String(decision.resetSeconds) },
    )
  }
}

export type BudgetState = {
  name: string
  points: number
  windowSeconds: number
  remaining: number
  resetSeconds: number
}

export type OutboundBudget = {
  readonly policies: BudgetPolicies
  /** Counts `cost` calls; throws `BudgetSpent` (503) when the spender's budget or the global one is spent. */
  spend: (spender: Spender, cost?: number) => Promise<void>
  /** The shared budgets as they stand (global and paid): for `/admin.json` and metrics. */
  state: () => Promise<BudgetState[]>
  /** Told of each refusal (metrics). */
  onSpent?: (name: string) => void
}

const GLOBAL_KEY = 'all'

/**
 * A ceiling on what free and anonymous requests can make the service spend
 * on outside calls (a model, moderation, embeddings): a per-client and a
 * global budget per window, kept where the request limits are (shared by
 * replicas on PostgreSQL). Paid requests draw on a budget of their own, so
 * a flood of free requests never stops a payer from being served.
 */
export const createOutboundBudget = async ({
  service,
  store,
  policies,
  onSpent,
}: {
  service: string
  store: LimitStore
  policies: BudgetPolicies
  onSpent?: (name: string) => void
}): Promise<OutboundBudget> => {
  const limits = await createLimits({
    service: `${service}:budget`,
    store,
    policies: {
      outbound: policies.perClient,
      'outbound-global': policies.global,
      'outbound-paid': policies.paid,
    },
  })
  const refuse = (decision: LimitDecision) => {
    onSpent?.(decision.name)
    throw new BudgetSpent(decision)
  }
  return {
    policies,
    spend: async (spender, cost = 1) => {
      if (spender.client !== undefined) {
        const own = await limits.take('outbound', spender.client, cost)
        if (!own.allowed) refuse(own)
      }
      if ('paid' in spender) {
        const paid = await limits.take('outbound-paid', GLOBAL_KEY, cost)
        if (!paid.allowed) refuse(paid)
        return
      }
      if (spender.global === false) return
      const global = await limits.take('outbound-global', GLOBAL_KEY, cost)
      if (!global.allowed) refuse(global)
    },
    state: async () =>
      Promise.all(
        (['outbound-global', 'outbound-paid'] as const).map(async (name) => {
          const decision = await limits.peek(name, GLOBAL_KEY)
          return {
            name,
            points: decision.policy.points,
            windowSeconds: decision.policy.windowSeconds,
            remaining: decision.remaining,
            resetSeconds: decision.resetSeconds,
          }
        }),
      ),
  }
}

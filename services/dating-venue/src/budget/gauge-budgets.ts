import type { Metrics, OutboundBudget } from '@agents/service-kit'

/**
 * `outbound_budget_remaining{budget}`: what is left of the global and the
 * paid outbound budgets in their current window, read when scraped.
 */
export const gaugeBudgets = (metrics: Metrics, outbound: OutboundBudget) =>
  metrics.gauge(
    'outbound_budget_remaining',
    'Outbound calls (model, moderation, embeddings) left in the current window, by budget',
    ['budget'],
    async function collect() {
      for (const state of await outbound.state()) this.set({ budget: state.name }, state.remaining)
    },
  )

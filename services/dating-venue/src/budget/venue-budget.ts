import {
  createLimits,
  createOutboundBudget,
  type LimitPolicy,
  type Limits,
  limitStoreFor,
  type Metrics,
  type OutboundBudget,
} from '@agents/service-kit'

/** What free and anonymous requests may make the venue spend (README, "Outbound budgets"). */
export type VenueBudget = {
  outbound: OutboundBudget
  /** Which calls leave the venue (the others are local and spend no shared budget). */
  remote: { moderation: boolean; embeddings: boolean }
  /** Personas entered without a credential, per client (`RATE_LIMIT_ANONYMOUS_PERSONA`). */
  anonymousPersonas: Limits<'anonymous-persona'>
}

export type CreateVenueBudgetParameters = {
  database: { kind: 'pglite' | 'postgres'; client: unknown }
  policies: {
    perClient: LimitPolicy
    global: LimitPolicy
    paid: LimitPolicy
    anonymousPersona: LimitPolicy
  }
  remote: VenueBudget['remote']
  metrics: Metrics
}

export const SERVICE = 'dating-venue'

/**
 * The venue's outbound budgets and its anonymous-persona limit, counted
 * where the request limits are: on PostgreSQL in the shared `rate_limits`
 * table (N replicas spend one budget), on PGlite in memory. A spent budget
 * is counted in `rate_limited_total{limit}`.
 */
export const createVenueBudget = async ({
  database,
  policies: { anonymousPersona, ...budgets },
  remote,
  metrics,
}: CreateVenueBudgetParameters): Promise<VenueBudget> => {
  const store = limitStoreFor(database)
  return {
    outbound: await createOutboundBudget({
      service: SERVICE,
      store,
      policies: budgets,
      onSpent: (name) => metrics.limited.inc({ limit: name }),
    }),
    remote,
    anonymousPersonas: await createLimits({
      service: SERVICE,
      store,
      policies: { 'anonymous-persona': anonymousPersona },
    }),
  }
}

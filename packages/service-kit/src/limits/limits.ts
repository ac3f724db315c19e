import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
} from 'rate-limiter-flexible'
import type { SqlClient } from '../db/open-database.ts'
import type { LimitPolicy } from './limit-policy.ts'

/**
 * Where counters live: this process's memory (one replica, PGlite), or a
 * PostgreSQL pool every replica shares, so N replicas allow what one allows.
 */
export type LimitStore = { kind: 'memory' } | { kind: 'postgres'; pool: unknown }

/** The store for a service's database: its PostgreSQL pool (shared by replicas), else memory (PGlite is one process). */
export const limitStoreFor = (database: {
  kind: 'pglite' | 'postgres'
  client: unknown
}): LimitStore =>
  database.kind === 'postgres' ? { kind: 'postgres', pool: database.client } : { kind: 'memory' }

/** One counted request (or a look without counting): what the headers and a 429 say. */
export type LimitDecision = {
  allowed: boolean
  /** The policy's name: a route class (`read`) or a budget (`outbound`). */
  name: string
  policy: LimitPolicy
  remaining: number
  /** Whole seconds until the window resets (at least 1 while something is counted). */
  resetSeconds: number
}

export type Limits<name extends string = string> = {
  readonly policies: Readonly<Record<name, LimitPolicy>>
  /** Counts `cost` units for `key`; refused (and counted) past the policy. */
  take(name: name, key: string, cost?: number): Promise<LimitDecision>
  /** What is left for `key` without counting anything. */
  peek(name: name, key: string): Promise<LimitDecision>
  /** Gives back units taken for work that turned out to cost nothing. */
  giveBack(name: name, key: string, cost?: number): Promise<void>
}

export type CreateLimitsParameters<name extends string> = {
  /** Prefixes every key, so services sharing a database never share counters. */
  service: string
  policies: Record<name, LimitPolicy>
  store: LimitStore
}

/** The table every limit of every service keeps its counters in, on PostgreSQL. */
export const LIMITS_TABLE = 'rate_limits'

/**
 * The library's own table, but UNLOGGED: a counter needs no durability (a
 * crash loses at most one window of counts), and a logged table made every
 * counted request wait for a WAL flush (2.4 ms median per take here, against
 * ~0.2 ms unlogged: bench/README.md, "Request limits").
 */
const createLimitsTable = async (pool: SqlClient) => {
  try {
    await pool.query(
      `CREATE UNLOGGED TABLE IF NOT EXISTS ${LIMITS_TABLE} (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`,
    )
  } catch (error) {
    // Replicas starting together race to create it; the loser sees a duplicate type.
    if ((error as { code?: string }).code !== '23505') throw error
  }
}

/**
 * Request limits and budgets over `rate-limiter-flexible`: a fixed window
 * per key per policy. On PostgreSQL every take is one upsert on a shared
 * table; a key already over its limit is refused from memory until its
 * window ends (no query), so a flood costs the database nothing, and if the
 * database fails the limits fall back to this process's memory rather than
 * refusing or waving everyone through.
 *
 * @example
 * const limits = await createLimits({ service: 'swap-rail', store, policies: { read: { points: 600, windowSeconds: 60 } } })
 * const decision = await limits.take('read', 'ip:203.0.113.9')
 */
export const createLimits = async <name extends string>({
  service,
  policies,
  store,
}: CreateLimitsParameters<name>): Promise<Limits<name>> => {
  const limiters = new Map<string, RateLimiterAbstract>()
  if (store.kind === 'postgres') await createLimitsTable(store.pool as SqlClient)
  for (const [name, policy] of Object.entries(policies) as Array<[name, LimitPolicy]>) {
    const options = {
      keyPrefix: `${service}:${name}`,
      points: policy.points,
      duration: policy.windowSeconds,
    }
    if (store.kind === 'memory') {
      limiters.set(name, new RateLimiterMemory(options))
      continue
    }
    limiters.set(
      name,
      new RateLimiterPostgres({
        ...options,
        storeClient: store.pool,
        storeType: 'pool',
        tableName: LIMITS_TABLE,
        tableCreated: true,
        ...(policy.points > 0 ? { inMemoryBlockOnConsumed: policy.points + 1 } : {}),
        insuranceLimiter: new RateLimiterMemory(options),
      }),
    )
  }

  const decide = (name: name, allowed: boolean, result: RateLimiterRes | null): LimitDecision => {
    const policy = policies[name]
    const used = result?.consumedPoints ?? 0
    const resetMs = result && result.msBeforeNext > 0 ? result.msBeforeNext : 0
    return {
      allowed,
      name,
      policy,
      remaining: Math.max(policy.points - used, 0),
      resetSeconds: used > 0 ? Math.max(Math.ceil(resetMs / 1000), 1) : policy.windowSeconds,
    }
  }
  const limiterOf = (name: name) => {
    const limiter = limiters.get(name)
    if (!limiter) throw new Error(`no limit named ${name}`)
    return limiter
  }

  return {
    policies,
    take: async (name, key, cost = 1) => {
      try {
        return decide(name, true, await limiterOf(name).consume(key, cost))
      } catch (error) {
        // The library rejects with the counter's state when over the limit.
        if (error instanceof RateLimiterRes) return decide(name, false, error)
        throw error
      }
    },
    peek: async (name, key) => {
      const decision = decide(name, true, await limiterOf(name).get(key))
      return { ...decision, allowed: decision.remaining > 0 }
    },
    giveBack: async (name, key, cost = 1) => {
      await limiterOf(name).reward(key, cost)
    },
  }
}

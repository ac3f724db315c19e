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
const RACED_CREATE = new Set(['42710', '23505', '42P07'])

const createLimitsTable = async (pool: SqlClient) => {
  try {
    await pool.query(
      `CREATE UNLOGGED TABLE IF NOT EXISTS ${LIMITS_TABLE} (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`,
    )
  } catch (error) {
    // Replicas starting together race to create it (IF NOT EXISTS does not
    // guard against a create in flight): the loser sees the table's row type
    // as a duplicate, 42710 or 23505 (pg_type's unique index), or 42P07.
    if (!RACED_CREATE.has((error as { code?: string }).code ?? '')) throw error
  }
}

/**
 * A lease is units one replica has already counted in the shared table for a
 * key and hands out from memory: a client that keeps coming back costs one
 * upsert per lease instead of one per request. Leases start at 1 unit and
 * double while the key keeps returning, up to 1/LEASE_SHARE of the policy
 * (policies under 2 * LEASE_SHARE units are counted one by one). Units are
 * counted before they are handed out, so N replicas never allow more than
 * one would; a replica's unspent lease can refuse a client at most that many
 * units early on another replica.
 */
const LEASE_SHARE = 20

type Lease = {
  /** Units counted in the table and not yet handed out. */
  left: number
  /** Units the table had left for others when this lease was taken. */
  remainingShared: number
  /** When the window (and the lease) ends, ms since the epoch. */
  until: number
  size: number
  /** The table refused this key: refuse from memory until `until`. */
  refused: boolean
}

/**
 * Request limits and budgets over `rate-limiter-flexible`: a fixed window
 * per key per policy. On PostgreSQL the counters are rows of one table every
 * replica shares, taken in leases (see `Lease`); a key the table refused is
 * refused from memory until its window ends, so a flood costs the database
 * nothing; if the database fails, counting falls back to this process's
 * memory rather than refusing or waving everyone through.
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
    limiters.set(
      name,
      store.kind === 'memory'
        ? new RateLimiterMemory(options)
        : new RateLimiterPostgres({
            ...options,
            storeClient: store.pool,
            storeType: 'pool',
            tableName: LIMITS_TABLE,
            tableCreated: true,
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
  const consume = async (name: name, key: string, units: number) => {
    try {
      return { allowed: true, result: await limiterOf(name).consume(key, units) }
    } catch (error) {
      // The library rejects with the counter's state when over the limit.
      if (error instanceof RateLimiterRes) return { allowed: false, result: error }
      throw error
    }
  }

  const leases = new Map<string, Lease>()
  const fromLease = (name: name, lease: Lease, allowed: boolean): LimitDecision => ({
    allowed,
    name,
    policy: policies[name],
    remaining: allowed ? lease.remainingShared + lease.left : 0,
    resetSeconds: Math.max(Math.ceil((lease.until - Date.now()) / 1000), 1),
  })
  const takeLeased = async (name: name, key: string, cost: number): Promise<LimitDecision> => {
    const id = `${name}\u0000${key}`
    const now = Date.now()
    let lease = leases.get(id)
    if (lease && lease.until <= now) {
      leases.delete(id)
      lease = undefined
    }
    if (lease?.refused) return fromLease(name, lease, false)
    if (lease && lease.left >= cost) {
      lease.left -= cost
      return fromLease(name, lease, true)
    }
    const ceiling = Math.max(Math.floor(policies[name].points / LEASE_SHARE), 1)
    const size = Math.min(lease ? lease.size * 2 : 1, ceiling)
    const held = lease?.left ?? 0
    const need = cost - held
    const units = Math.max(need, size)
    let { allowed, result } = await consume(name, key, units)
    if (!allowed && units > need) {
      // The lease asked past what is left: give it back and take only the need.
      await limiterOf(name).reward(key, units)
      ;({ allowed, result } = await consume(name, key, need))
    }
    const until = now + Math.max(result.msBeforeNext, 0)
    if (!allowed) {
      leases.set(id, { left: 0, remainingShared: 0, until, size: 1, refused: true })
      return decide(name, false, result)
    }
    const left = held + units - cost
    const next = { left, remainingShared: result.remainingPoints, until, size, refused: false }
    leases.set(id, next)
    if (leases.size > 100_000) sweep(now)
    return fromLease(name, next, true)
  }
  const sweep = (now: number) => {
    for (const [id, lease] of leases) if (lease.until <= now) leases.delete(id)
  }
  // One take at a time per key on this replica: concurrent takes that each
  // found the lease empty would each count a lease in the table and keep
  // only the last, leaking the others' units (a burst of 120 requests from
  // one client counted ~1,000 units). The rest wait for the refill.
  const inFlight = new Map<string, Promise<unknown>>()
  const takeInTurn = (name: name, key: string, cost: number) => {
    const id = `${name}\u0000${key}`
    const before = inFlight.get(id)
    const turn = before
      ? before.then(
          () => takeLeased(name, key, cost),
          () => takeLeased(name, key, cost),
        )
      : takeLeased(name, key, cost)
    inFlight.set(id, turn)
    const clear = () => {
      if (inFlight.get(id) === turn) inFlight.delete(id)
    }
    turn.then(clear, clear)
    return turn
  }

  return {
    policies,
    take: async (name, key, cost = 1) => {
      if (store.kind === 'postgres') return takeInTurn(name, key, cost)
      const { allowed, result } = await consume(name, key, cost)
      return decide(name, allowed, result)
    },
    peek: async (name, key) => {
      const decision = decide(name, true, await limiterOf(name).get(key))
      const lease = leases.get(`${name}\u0000${key}`)
      const left = lease && lease.until > Date.now() ? lease.left : 0
      const remaining = decision.remaining + left
      return { ...decision, remaining, allowed: remaining > 0 && !lease?.refused }
    },
    giveBack: async (name, key, cost = 1) => {
      const lease = leases.get(`${name}\u0000${key}`)
      if (lease && !lease.refused && lease.until > Date.now()) lease.left += cost
      else await limiterOf(name).reward(key, cost)
    },
  }
}

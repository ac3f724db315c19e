import pg from 'pg'
import { UnpreparedClient } from '../db/pool-clients.ts'
import type { Logger } from '../logger.ts'
import { sanitizeError } from '../sanitize-error.ts'
import type { LimitPolicy } from './limit-policy.ts'
import type { LimitRequestsParameters } from './limit-requests.ts'
import { createLimits, type LimitStore, limitStoreFor } from './limits.ts'

/**
 * Where a service's request counters live: in its own database (on
 * PostgreSQL one table every replica shares; PGlite, one process: memory),
 * or in a database of their own (`databaseUrl`; unset: this process's memory).
 */
export type RequestLimitCounters =
  | { database: { kind: 'pglite' | 'postgres'; client: unknown } }
  | {
      databaseUrl: string | undefined
      /**
       * `transaction` when the URL is a transaction pooler, which hands the
       * library's named statements (`rate_limits:rlflx-upsert`) from client
       * to client: every statement then goes unnamed. Default `session`.
       */
      poolMode?: 'session' | 'transaction' | undefined
      logger: Logger
    }

export type CreateRequestLimitsParameters<name extends string> = Omit<
  LimitRequestsParameters<name>,
  'limits' | 'onLimited'
> & {
  /** Prefixes every counter's key, so services sharing a database never share counters. */
  service: string
  policies: Record<name, LimitPolicy>
  counters: RequestLimitCounters
}

/** A service's request limits, for `createApp`'s `limits`; `close` ends a pool of their own. */
export type RequestLimits<name extends string> = LimitRequestsParameters<name> & {
  close: () => Promise<void>
}

const ownStore = async ({
  databaseUrl,
  poolMode = 'session',
  logger,
}: Extract<RequestLimitCounters, { databaseUrl: unknown }>): Promise<{
  store: LimitStore
  close: () => Promise<void>
}> => {
  if (databaseUrl === undefined) return { store: { kind: 'memory' }, close: async () => {} }
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 10,
    // A slow or unreachable database must not hold requests: past these the
    // counting falls back to this process's memory (`createLimits`' insurance).
    connectionTimeoutMillis: 1_000,
    query_timeout: 1_000,
    ...(poolMode === 'transaction' ? { Client: UnpreparedClient } : {}),
  })
  pool.on('error', (error) =>
    logger.warn({ err: sanitizeError(error) }, 'rate-limit database connection lost'),
  )
  return { store: { kind: 'postgres', pool }, close: () => pool.end() }
}

/**
 * The one limits factory every service uses: its named policies, counted
 * where `counters` says, for `createApp`. Each route's class and the
 * credentials it counts come from the route's own declaration (`limit` and
 * `security`, see `registerRoute`); `credentials` says how each scheme is
 * read from a request.
 *
 * @example
 * const limits = await createRequestLimits({
 *   service: 'swap-rail',
 *   policies: limitPolicies(config, RAIL_LIMIT_DEFAULTS),
 *   counters: { database },
 *   unlisted: { read: 'read' },
 * })
 */
export const createRequestLimits = async <name extends string>({
  service,
  policies,
  counters,
  ...counting
}: CreateRequestLimitsParameters<name>): Promise<RequestLimits<name>> => {
  const { store, close } =
    'database' in counters
      ? { store: limitStoreFor(counters.database), close: async () => {} }
      : await ownStore(counters)
  try {
    return { ...counting, limits: await createLimits({ service, policies, store }), close }
  } catch (error) {
    await close()
    throw error
  }
}

import {
  createLimits,
  type LimitPolicy,
  type Limits,
  type Logger,
  sanitizeError,
  UnpreparedClient,
} from '@agents/service-kit'
import pg from 'pg'
import type { RouterLimitName } from './limit-defaults.ts'

export type RouterLimits = { limits: Limits<RouterLimitName>; close: () => Promise<void> }

export type CreateRouterLimitsParameters = {
  service: string
  policies: Record<RouterLimitName, LimitPolicy>
  /** `RATE_LIMIT_DATABASE_URL`: counters every replica shares; unset, this process's memory. */
  databaseUrl?: string | undefined
  /**
   * `RATE_LIMIT_DATABASE_POOL_MODE`: `transaction` when the URL is a
   * transaction pooler, which hands the library's named statements
   * (`rate_limits:rlflx-upsert`) from client to client: every statement then
   * goes unnamed. Default `session`.
   */
  poolMode?: 'session' | 'transaction'
  logger: Logger
}

/**
 * The router's counters: in memory (one replica), or in one PostgreSQL
 * table (`rate_limits`) that every replica given the same URL shares, so
 * N replicas allow what one allows. The router keeps nothing else there.
 */
export const createRouterLimits = async ({
  service,
  policies,
  databaseUrl,
  poolMode = 'session',
  logger,
}: CreateRouterLimitsParameters): Promise<RouterLimits> => {
  if (databaseUrl === undefined)
    return {
      limits: await createLimits({ service, policies, store: { kind: 'memory' } }),
      close: async () => {},
    }
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 10,
    // A slow or unreachable database must not hold requests: past these the
    // counting falls back to this process's memory (the kit's insurance).
    connectionTimeoutMillis: 1_000,
    query_timeout: 1_000,
    ...(poolMode === 'transaction' ? { Client: UnpreparedClient } : {}),
  })
  pool.on('error', (error) =>
    logger.warn({ err: sanitizeError(error) }, 'rate-limit database connection lost'),
  )
  try {
    const limits = await createLimits({ service, policies, store: { kind: 'postgres', pool } })
    return { limits, close: () => pool.end() }
  } catch (error) {
    await pool.end()
    throw error
  }
}

import { availableParallelism } from 'node:os'
import {
  BaseUrl,
  ForwardedTrustSetting,
  LogLevel,
  limitSettings,
  loadConfig,
  Port,
  refineBaseUrl,
} from '@agents/service-kit'
import { z } from 'zod'
import { LIMIT_DEFAULTS } from './limits/limit-defaults.ts'
import { defaultPadsDirectory } from './matrix/load-matrix.ts'

export const LaunchRouterConfig = z
  .object({
    NODE_ENV: z.string().optional(),
    PORT: Port.default(3001),
    HOST: z.string().default('127.0.0.1'),
    LOG_LEVEL: LogLevel.default('info'),
    /** Public base URL written into llms.txt; the listening address when unset, required in production. */
    BASE_URL: BaseUrl.optional(),
    PADS_DIR: z.string().default(defaultPadsDirectory),
    MINER_THREADS: z.coerce.number().int().min(1).max(256).default(availableParallelism()),
    SALT_MAX_ITERATIONS: z.coerce
      .number()
      .int()
      .min(1)
      .max(2 ** 40)
      .default(50_000_000),
    SALT_TIME_BUDGET_MS: z.coerce.number().int().min(10).max(120_000).default(10_000),
    MAX_BODY_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(256 * 1024),
    /** `RATE_LIMIT_READ`, `RATE_LIMIT_MINING`: points/seconds per client (limits/limit-defaults.ts). */
    ...limitSettings(LIMIT_DEFAULTS),
    /** Proxies in front whose X-Forwarded-For is believed (the client's address is what limits count). */
    TRUST_FORWARDED_FOR: ForwardedTrustSetting,
    /** PostgreSQL for the limits' counters, shared by every replica; unset, memory (one replica). */
    RATE_LIMIT_DATABASE_URL: z.string().url().optional(),
    /** `transaction` when that URL is a transaction pooler: the counters' statements then go unnamed. */
    RATE_LIMIT_DATABASE_POOL_MODE: z.enum(['session', 'transaction']).default('session'),
    /** The operator's bearer token for `GET /metrics`; unset, metrics are not served (403). */
    METRICS_TOKEN: z.string().min(16, 'METRICS_TOKEN: at least 16 characters').optional(),
  })
  .superRefine(refineBaseUrl)
export type LaunchRouterConfig = z.infer<typeof LaunchRouterConfig>

export const readConfig = (env: Record<string, string | undefined> = process.env) =>
  loadConfig(LaunchRouterConfig, env)

import { availableParallelism } from 'node:os'
import { LogLevel, loadConfig, Port } from '@agents/service-kit'
import { z } from 'zod'
import { defaultPadsDirectory } from './matrix/load-matrix.ts'

export const LaunchRouterConfig = z.object({
  PORT: Port.default(3001),
  HOST: z.string().default('127.0.0.1'),
  LOG_LEVEL: LogLevel.default('info'),
  /** Public base URL shown in llms.txt; defaults to the listening address. */
  BASE_URL: z.string().url().optional(),
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
})
export type LaunchRouterConfig = z.infer<typeof LaunchRouterConfig>

export const readConfig = (env: Record<string, string | undefined> = process.env) =>
  loadConfig(LaunchRouterConfig, env)

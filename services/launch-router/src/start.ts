import {
  createLogger,
  createMetrics,
  createRequestLimits,
  limitPolicies,
  type RunningServer,
  serve,
} from '@agents/service-kit'
import { buildApp, SERVICE_NAME } from './app.ts'
import type { LaunchRouterConfig } from './config.ts'
import { createHotPath } from './hot-path/create-hot-path.ts'
import { precomputeAnswers } from './hot-path/precompute-answers.ts'
import { LIMIT_DEFAULTS } from './limits/limit-defaults.ts'
import { loadMatrix, readPadFiles } from './matrix/load-matrix.ts'
import { createMinerPool } from './salt/miner-pool.ts'

export type StartLaunchRouterOptions = {
  handleSignals?: boolean
  /** Process metrics (CPU, memory, event loop); off in tests that start many routers in one process. */
  processMetrics?: boolean
  /**
   * Benches only: `false` builds the app without request limits or the
   * mining budget, to measure what they cost beside it. Not a setting.
   */
  requestLimits?: boolean
  /**
   * Tests and benches only: `false` serves every request through the app,
   * without the hot path (`hot-path/create-hot-path.ts`), to compare the two. Not a setting.
   */
  hotPath?: boolean
}

/** Validates the matrix, starts the miner pool, the limits and the HTTP server. Used by main.ts, tests and benches. */
export const startLaunchRouter = async (
  config: LaunchRouterConfig,
  {
    handleSignals = false,
    processMetrics = true,
    requestLimits = true,
    hotPath = true,
  }: StartLaunchRouterOptions = {},
): Promise<RunningServer> => {
  const logger = createLogger({ name: SERVICE_NAME, level: config.LOG_LEVEL })
  const matrix = loadMatrix(readPadFiles(config.PADS_DIR))
  const answers = precomputeAnswers(matrix)
  // The router keeps nothing but its counters in a database: in memory (one
  // replica), or in the one table every replica given the same URL shares.
  const limits = requestLimits
    ? await createRequestLimits({
        service: SERVICE_NAME,
        policies: limitPolicies(config, LIMIT_DEFAULTS),
        counters: {
          databaseUrl: config.RATE_LIMIT_DATABASE_URL,
          poolMode: config.RATE_LIMIT_DATABASE_POOL_MODE,
          logger,
        },
        // The documents, probes and unknown routes are reads like the operations.
        unlisted: { read: 'read' },
        trustForwardedFor: config.TRUST_FORWARDED_FOR,
      })
    : undefined
  const pool = await createMinerPool({ size: config.MINER_THREADS })
  const metrics = createMetrics({ service: SERVICE_NAME, processMetrics })
  // The public base URL: configured, else (development) the address the server binds, known once it listens.
  let baseUrl = config.BASE_URL ?? `http://${config.HOST}:${config.PORT}`
  const app = buildApp({
    matrix,
    answers,
    pool,
    logger,
    maxBodyBytes: config.MAX_BODY_BYTES,
    salt: { maxIterations: config.SALT_MAX_ITERATIONS, timeBudgetMs: config.SALT_TIME_BUDGET_MS },
    baseUrl: () => baseUrl,
    ...(limits ? { limits } : {}),
    metrics: { metrics, token: config.METRICS_TOKEN },
  })
  const server = await serve(app, {
    ...(hotPath
      ? {
          wrapListener: createHotPath({
            deps: { matrix, answers },
            app,
            logger,
            maxBodyBytes: config.MAX_BODY_BYTES,
            limits,
            metrics,
          }),
        }
      : {}),
    port: config.PORT,
    host: config.HOST,
    logger,
    handleSignals,
    onClose: async () => {
      await pool.close()
      await limits?.close()
    },
  })
  if (!config.BASE_URL) baseUrl = server.url
  logger.info(
    {
      url: server.url,
      pads: matrix.pads.length,
      minerThreads: pool.size,
      limits: limits ? (config.RATE_LIMIT_DATABASE_URL ? 'postgres' : 'memory') : 'off',
    },
    'launch router listening',
  )
  return server
}

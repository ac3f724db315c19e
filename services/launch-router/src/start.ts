import { createLogger, type RunningServer, serve } from '@agents/service-kit'
import { buildApp, SERVICE_NAME } from './app.ts'
import type { LaunchRouterConfig } from './config.ts'
import { loadMatrix, readPadFiles } from './matrix/load-matrix.ts'
import { createMinerPool } from './salt/miner-pool.ts'

/** Validates the matrix, starts the miner pool and the HTTP server. Used by main.ts and tests. */
export const startLaunchRouter = async (
  config: LaunchRouterConfig,
  { handleSignals = false }: { handleSignals?: boolean } = {},
): Promise<RunningServer> => {
  const logger = createLogger({ name: SERVICE_NAME, level: config.LOG_LEVEL })
  const matrix = loadMatrix(readPadFiles(config.PADS_DIR))
  const pool = await createMinerPool({ size: config.MINER_THREADS })
  const app = buildApp({
    matrix,
    pool,
    logger,
    maxBodyBytes: config.MAX_BODY_BYTES,
    salt: { maxIterations: config.SALT_MAX_ITERATIONS, timeBudgetMs: config.SALT_TIME_BUDGET_MS },
    ...(config.BASE_URL ? { baseUrl: config.BASE_URL } : {}),
  })
  const server = await serve(app, {
    port: config.PORT,
    host: config.HOST,
    logger,
    handleSignals,
    onClose: () => pool.close(),
  })
  logger.info(
    { url: server.url, pads: matrix.pads.length, minerThreads: pool.size },
    'launch router listening',
  )
  return server
}

import { type Devnet, devnetEnv } from '@agents/devnet'
import { UNUSED_PAYMENTS_ENV } from '@agents/payments/testing'
import { readConfig } from './config.ts'
import { SWAP_MIGRATIONS_FOLDER } from './db/open.ts'
import { startSwapRail } from './start.ts'

/** The PostgreSQL server of the tests (`.ci/run` exports it). */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL

/** Test databases on PostgreSQL start migrated, as copies of one template (`createTestDatabase`). */
export const SWAP_TEST_DATABASE = { migrationsFolder: SWAP_MIGRATIONS_FOLDER }

/**
 * The swap rail on an ephemeral port for a test: the devnet's payment
 * settings, PGlite in memory unless `databaseUrl` is given, `localhost`
 * allowed as a seller endpoint host, and the sweep left to the test.
 */
export const startTestSwapRail = async (parameters: TestSwapRailParameters = {}) => {
  const settings = testSwapRailEnv(parameters)
  return startSwapRail(readConfig(settings), settings)
}

export type TestSwapRailParameters = {
  /** Without a devnet, payment settings that are never used (no test pays). */
  devnet?: Devnet
  databaseUrl?: string | undefined
  env?: Record<string, string>
}

/** The environment of a test swap rail (also what a test passes to one in a child process). */
export const testSwapRailEnv = ({
  devnet,
  databaseUrl,
  env = {},
}: TestSwapRailParameters = {}): Record<string, string> => {
  return {
    ...(devnet ? devnetEnv(devnet) : UNUSED_PAYMENTS_ENV),
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    PORT: '0',
    DATA_DIR: 'memory://',
    SWAP_DEV_ENDPOINT_HOSTS: 'localhost',
    SWAP_SWEEP_INTERVAL_MS: '3600000',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...env,
  }
}

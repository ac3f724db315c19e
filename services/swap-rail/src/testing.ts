import { type Devnet, devnetEnv } from '@agents/devnet'
import { readConfig } from './config.ts'
import { startSwapRail } from './start.ts'

/**
 * The swap rail on an ephemeral port for a test: the devnet's payment
 * settings, PGlite in memory unless `databaseUrl` is given, `localhost`
 * allowed as a seller endpoint host, and the sweep left to the test.
 */
export const startTestSwapRail = async ({
  devnet,
  databaseUrl,
  env = {},
}: {
  devnet: Devnet
  databaseUrl?: string | undefined
  env?: Record<string, string>
}) => {
  const settings = {
    ...devnetEnv(devnet),
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    PORT: '0',
    DATA_DIR: 'memory://',
    SWAP_DEV_ENDPOINT_HOSTS: 'localhost',
    SWAP_SWEEP_INTERVAL_MS: '3600000',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...env,
  }
  return startSwapRail(readConfig(settings), settings)
}

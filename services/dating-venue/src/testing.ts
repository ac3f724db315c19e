import { type Devnet, devnetEnv } from '@agents/devnet'
import { readConfig } from './config.ts'
import { startVenue } from './start.ts'

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL
export const TEST_ADMIN_TOKEN = 'test-operator-token-0123456789abcdef'

const NO_PAYMENTS_ENV = {
  PAYMENTS_DEVNET: '1',
  PAYMENTS_FACILITATOR_URL: 'http://127.0.0.1:9',
  PAYMENTS_PAY_TO: '0x3aA62bAb8c47716eE13421d0620C9FC9740A5A62',
}

/**
 * The venue on an ephemeral port for a test: the devnet's payment settings
 * (or unused ones), PGlite in memory unless `databaseUrl` is given, the
 * venue open, `localhost` callbacks allowed, an operator token.
 */
export const startTestVenue = async ({
  devnet,
  databaseUrl,
  env = {},
}: {
  devnet?: Devnet
  databaseUrl?: string | undefined
  env?: Record<string, string>
} = {}) => {
  const settings = {
    ...(devnet ? devnetEnv(devnet) : NO_PAYMENTS_ENV),
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    PORT: '0',
    DATA_DIR: 'memory://',
    VENUE_OPEN: 'true',
    VENUE_CALLBACK_ALLOW_HOSTS: 'localhost,127.0.0.1',
    VENUE_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    VENUE_CONTACT_KEY: Buffer.alloc(32, 7).toString('base64'),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...env,
  }
  return startVenue(readConfig(settings), settings)
}

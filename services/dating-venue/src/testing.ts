import { type Devnet, devnetEnv } from '@agents/devnet'
import { UNUSED_PAYMENTS_ENV } from '@agents/payments/testing'
import { readConfig } from './config.ts'
import { VENUE_MIGRATIONS_FOLDER } from './db/open.ts'
import { type FakeEmbeddings, startFakeEmbeddings } from './fake-embeddings.ts'
import { VENUE_LIMIT_DEFAULTS } from './limits/limit-defaults.ts'
import { startVenue } from './start.ts'

export { type FakeEmbeddings, startFakeEmbeddings } from './fake-embeddings.ts'
/** A valid POST /api/intake/heart-file body (doc_submit), for tests from outside the venue. */
export { doc as sampleHeartFile } from './testing/intake-fixtures.ts'

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL

/** Test databases on PostgreSQL start migrated, as copies of one template (`createTestDatabase`). */
export const VENUE_TEST_DATABASE = { migrationsFolder: VENUE_MIGRATIONS_FOLDER }
export const TEST_ADMIN_TOKEN = 'test-operator-token-0123456789abcdef'

/**
 * Request limits no test meets unless it sets small ones in `env`: many
 * tests enter lots of personas, sign in and guess credentials from
 * 127.0.0.1, which the production defaults would refuse.
 */
export const GENEROUS_TEST_LIMITS: Record<string, string> = Object.fromEntries(
  Object.keys(VENUE_LIMIT_DEFAULTS).map((name) => [
    `RATE_LIMIT_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`,
    '1000000/60',
  ]),
)

/**
 * Seats and outbound budgets as the venue had them before the unowned share
 * and the budgets: most tests enter personas without an owner from
 * 127.0.0.1. A test of the share or the budgets sets its own in `env`.
 */
export const GENEROUS_TEST_BUDGETS: Record<string, string> = {
  VENUE_UNOWNED_SHARE_PCT: '100',
  RATE_LIMIT_ANONYMOUS_PERSONA: '1000000/60',
  VENUE_OUTBOUND_BUDGET_PER_CLIENT: '1000000/60',
  VENUE_OUTBOUND_BUDGET_GLOBAL: '1000000/60',
  VENUE_OUTBOUND_BUDGET_PAID: '1000000/60',
}

let sharedEmbeddings: Promise<FakeEmbeddings> | undefined
const sharedFakeEmbeddings = () => {
  sharedEmbeddings ??= startFakeEmbeddings()
  return sharedEmbeddings
}

export type TestVenueParameters = {
  devnet?: Devnet
  databaseUrl?: string | undefined
  env?: Record<string, string>
  /** `local` runs the real model; by default a shared fake OpenAI-compatible endpoint. */
  embeddings?: 'local' | FakeEmbeddings
}

/** The environment of a test venue (also what a test passes to a venue in a child process). */
export const testVenueEnv = async ({
  devnet,
  databaseUrl,
  env = {},
  embeddings,
}: TestVenueParameters = {}): Promise<Record<string, string>> => {
  const fake = embeddings === 'local' ? undefined : (embeddings ?? (await sharedFakeEmbeddings()))
  return {
    ...(devnet ? devnetEnv(devnet) : UNUSED_PAYMENTS_ENV),
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    PORT: '0',
    DATA_DIR: 'memory://',
    VENUE_OPEN: 'true',
    VENUE_CALLBACK_ALLOW_HOSTS: 'localhost,127.0.0.1',
    VENUE_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    VENUE_CONTACT_KEY: Buffer.alloc(32, 7).toString('base64'),
    VENUE_ERASURE_KEY: Buffer.alloc(32, 9).toString('base64'),
    VENUE_BEAT_INTERVAL_MS: '0',
    EMBEDDINGS_THREADS: '1',
    // A test's index process shares the machine with other test files, not with requests: at
    // niceness 10 it starves behind them (the kept-index tests: 17 s alone, 110 s in the suite).
    VENUE_MATCH_INDEX_NICENESS: '0',
    ...GENEROUS_TEST_LIMITS,
    ...GENEROUS_TEST_BUDGETS,
    ...(fake ? { EMBEDDINGS_URL: fake.url, EMBEDDINGS_MODEL: 'fake-embeddings' } : {}),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...env,
  }
}

/**
 * The venue on an ephemeral port for a test: the devnet's payment settings
 * (or unused ones), PGlite in memory unless `databaseUrl` is given, the
 * venue open, `localhost` callbacks allowed, an operator token, request
 * limits no test meets unless its `env` sets `RATE_LIMIT_*`.
 */
export const startTestVenue = async (parameters: TestVenueParameters = {}) => {
  const settings = await testVenueEnv(parameters)
  return startVenue(readConfig(settings), settings)
}

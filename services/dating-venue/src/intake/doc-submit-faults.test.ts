import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { proxiedPostgresUrl, startTcpFaultProxy, type TcpFaultProxy } from '@agents/devnet'
import {
  type ChildServiceTarget,
  type ExactlyOnceTarget,
  exactlyOnceScenarios,
  type FaultDevnet,
  freePort,
  hostPortOf,
  killScenario,
  PAYER_RAILS,
  type PayerRail,
  type Purchase,
  paymentsHealthScenario,
  spawnService,
  startFaultDevnet,
} from '@agents/payments/testing'
import { createTestDatabase, testBackends } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe } from 'vitest'
import type { Venue } from '../start.ts'
import { startTestVenue, TEST_DATABASE_URL, testVenueEnv } from '../testing.ts'

// doc_submit under every fault of "Paid requests deliver exactly once", on every rail and backend.

const PRICE = 1_000_000n
const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url))
// A unique marker without digits: the safety screen reads long digit runs as phone numbers.
const letters = () =>
  Array.from(randomBytes(12), (byte) => String.fromCharCode(97 + (byte % 26))).join('')

let faults: FaultDevnet
beforeAll(async () => {
  faults = await startFaultDevnet()
}, 60_000)
afterAll(() => faults?.stop())

/** A doc to file, told apart by its `about` line. */
const docPurchase = (serviceUrl: string, counter: Venue): Purchase => {
  const marker = `I restore old sailboats, fault test ${letters()}`
  return {
    url: `${serviceUrl}/api/intake/heart-file`,
    body: JSON.stringify({
      ageAttested: true,
      contactRef: 'signal: private-pointer-42',
      heart: {
        about: marker,
        seeking: 'Someone curious who likes slow Sunday mornings.',
        values: ['honesty'],
        interests: ['sailing'],
      },
    }),
    price: PRICE,
    deliveries: async () => {
      const { rows } = await counter.deps.database.client.query(
        `SELECT count(*)::int AS n FROM heart_files WHERE heart->>'about' = $1`,
        [marker],
      )
      return (rows[0] as { n: number }).n
    },
    received: (rail: PayerRail) => {
      const { devnet } = faults
      return rail === 'mpp'
        ? devnet.tempoBalance!(devnet.accounts.payee)
        : devnet.usdcBalance(devnet.accounts.payee)
    },
    identity: (answer) => answer.heartFileId,
  }
}

describe.each(testBackends(TEST_DATABASE_URL))('doc_submit exactly once on $name', (backend) => {
  let venue: Venue
  let database: TcpFaultProxy | undefined
  let drop: () => Promise<void> = async () => {}
  beforeAll(async () => {
    const opened = await backend.open()
    drop = opened.drop
    if (opened.url) database = await startTcpFaultProxy(hostPortOf(opened.url))
    venue = await startTestVenue({
      devnet: faults.devnet,
      databaseUrl: opened.url && database ? proxiedPostgresUrl(opened.url, database) : undefined,
      env: { ...faults.env(), PAYMENTS_RECONCILE_INTERVAL_MS: '3600000' },
    })
  }, 60_000)
  afterAll(async () => {
    await venue?.close()
    await database?.close()
    await drop()
  })

  const target = (): ExactlyOnceTarget => ({
    devnet: faults.devnet,
    payer: faults.devnet.accounts.payer,
    reconcileNow: () => venue.reconcileNow(),
    healthUrl: () => `${venue.url}/health`,
    faults: { baseRpc: faults.baseRpc, tempoRpc: faults.tempoRpc, database },
    buy: async () => docPurchase(venue.url, venue),
  })

  paymentsHealthScenario(target)
  for (const rail of PAYER_RAILS)
    describe(rail, () =>
      exactlyOnceScenarios(rail, target, { databaseFaults: backend.name === 'PostgreSQL' }),
    )
})

// A killed process on PostgreSQL, the deployment that runs replicas; the test process watches
// the same database while the child is down.
describe.runIf(TEST_DATABASE_URL)('doc_submit when the venue process is killed', () => {
  let drop: () => Promise<void> = async () => {}
  let env: Record<string, string>
  let observer: Venue
  beforeAll(async () => {
    const opened = await createTestDatabase(TEST_DATABASE_URL!)
    drop = opened.drop
    env = await testVenueEnv({
      devnet: faults.devnet,
      env: {
        ...faults.env(),
        DATABASE_URL: opened.url,
        PORT: String(await freePort()),
        HOST: '127.0.0.1',
        PAYMENTS_RECONCILE_INTERVAL_MS: '200',
      },
    })
    observer = await startTestVenue({
      devnet: faults.devnet,
      databaseUrl: opened.url,
      env: { PAYMENTS_RECONCILE_INTERVAL_MS: '3600000' },
    })
  }, 60_000)
  afterAll(async () => {
    await observer?.close()
    await drop()
  })

  const target = (): ChildServiceTarget => ({
    devnet: faults.devnet,
    payer: faults.devnet.accounts.payer2,
    faults: { baseRpc: faults.baseRpc, tempoRpc: faults.tempoRpc },
    start: () => spawnService(MAIN, env),
    buy: async (serviceUrl) => docPurchase(serviceUrl, observer),
  })

  for (const rail of PAYER_RAILS) killScenario(rail, target)
})

import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import {
  type Devnet,
  proxiedPostgresUrl,
  startDevnet,
  startTcpFaultProxy,
  type TcpFaultProxy,
} from '@agents/devnet'
import {
  type ChildServiceTarget,
  type ExactlyOnceTarget,
  exactlyOnceScenarios,
  freePort,
  hostPortOf,
  killScenario,
  PAYER_RAILS,
  type PayerRail,
  type Purchase,
  payFor,
  send,
  spawnService,
  throughProxy,
} from '@agents/payments/testing'
import { createTestDatabase, testBackends } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { startTestVenue, TEST_DATABASE_URL, testVenueEnv } from '../testing.ts'

// doc_submit under every fault of "Paid requests deliver exactly once", on every rail and backend.

const PRICE = 1_000_000n
// A unique marker without digits: the safety screen reads long digit runs as phone numbers.
const letters = () =>
  Array.from(randomBytes(12), (byte) => String.fromCharCode(97 + (byte % 26))).join('')
const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url))

let devnet: Devnet
let baseRpc: TcpFaultProxy
let tempoRpc: TcpFaultProxy
beforeAll(async () => {
  devnet = await startDevnet()
  baseRpc = await startTcpFaultProxy(hostPortOf(devnet.base.rpcUrl))
  tempoRpc = await startTcpFaultProxy(hostPortOf(devnet.tempo!.rpcUrl))
}, 60_000)
afterAll(async () => {
  await baseRpc?.close()
  await tempoRpc?.close()
  await devnet?.stop()
})

/** Payments settings: short timeouts and leases, the chain reads through fault proxies. */
const faultEnv = () => ({
  PAYMENTS_FACILITATOR_TIMEOUT_MS: '1000',
  PAYMENTS_LEASE_SECONDS: '2',
  PAYMENTS_BASE_RPC_URL: throughProxy(baseRpc, devnet.base.rpcUrl),
  PAYMENTS_TEMPO_RPC_URL: throughProxy(tempoRpc, devnet.tempo!.rpcUrl),
})

const heartFileCount = async (venue: Venue, marker: string) => {
  const { rows } = await venue.deps.database.client.query(
    `SELECT count(*)::int AS n FROM heart_files WHERE heart->>'about' = $1`,
    [marker],
  )
  return (rows[0] as { n: number }).n
}

const doc = (marker: string) =>
  JSON.stringify({
    ageAttested: true,
    contactRef: 'signal: private-pointer-42',
    heart: {
      about: marker,
      seeking: 'Someone curious who likes slow Sunday mornings.',
      values: ['honesty'],
      interests: ['sailing'],
    },
  })

const received = (rail: PayerRail) =>
  rail === 'mpp'
    ? devnet.tempoBalance!(devnet.accounts.payee)
    : devnet.usdcBalance(devnet.accounts.payee)

describe.each(testBackends(TEST_DATABASE_URL))('doc_submit exactly once on $name', (backend) => {
  let venue: Venue
  let database: TcpFaultProxy | undefined
  let drop: () => Promise<void> = async () => {}
  beforeAll(async () => {
    const opened = await backend.open()
    drop = opened.drop
    if (opened.url) database = await startTcpFaultProxy(hostPortOf(opened.url))
    venue = await startTestVenue({
      devnet,
      databaseUrl: opened.url && database ? proxiedPostgresUrl(opened.url, database) : undefined,
      env: { ...faultEnv(), PAYMENTS_RECONCILE_INTERVAL_MS: '3600000' },
    })
  }, 60_000)
  afterAll(async () => {
    await venue?.close()
    await database?.close()
    await drop()
  })

  const target = (): ExactlyOnceTarget => ({
    devnet,
    payer: devnet.accounts.payer,
    reconcileNow: () => venue.reconcileNow(),
    faults: { baseRpc, tempoRpc, database },
    buy: async (): Promise<Purchase> => {
      const marker = `I restore old sailboats, fault test ${letters()}`
      return {
        url: `${venue.url}/api/intake/heart-file`,
        body: doc(marker),
        price: PRICE,
        deliveries: () => heartFileCount(venue, marker),
        received,
        identity: (answer) => answer.heartFileId,
      }
    },
  })

  it('GET /health reports the facilitator, the chains and the unresolved payments', async () => {
    const health = () =>
      fetch(`${venue.url}/health`).then(async (r) => ({ http: r.status, ...(await r.json()) }))
    const healthy = await health()
    expect(healthy.payments).toEqual({
      status: 'ok',
      facilitator: 'ok',
      chains: {
        base: { ok: true, block: expect.any(String) },
        tempo: { ok: true, block: expect.any(String) },
      },
      unresolvedPayments: 0,
    })
    devnet.facilitator.setBehavior('down')
    baseRpc.cut()
    try {
      // Degraded, not down: the service still answers and paid requests defer.
      const degraded = await health()
      expect(degraded.http).toBe(200)
      expect(degraded.payments).toMatchObject({
        status: 'degraded',
        facilitator: 'unavailable',
        chains: { base: { ok: false }, tempo: { ok: true } },
      })
    } finally {
      devnet.facilitator.setBehavior('normal')
      baseRpc.restore()
    }
    // An MPP payment whose outcome is unknown is counted until the reconciler resolves it.
    const t = target()
    const purchase = await t.buy()
    const headers = await payFor(devnet, 'mpp', purchase, t.payer)
    tempoRpc.cut()
    try {
      expect((await send(purchase, headers)).status).toBe(503)
      expect((await health()).payments.unresolvedPayments).toBe(1)
    } finally {
      tempoRpc.restore()
    }
    await t.reconcileNow()
    expect((await health()).payments.unresolvedPayments).toBe(0)
  })

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
    const port = String(await freePort())
    env = await testVenueEnv({
      devnet,
      env: {
        ...faultEnv(),
        DATABASE_URL: opened.url,
        PORT: port,
        HOST: '127.0.0.1',
        PAYMENTS_RECONCILE_INTERVAL_MS: '200',
      },
    })
    observer = await startTestVenue({
      devnet,
      databaseUrl: opened.url,
      env: { PAYMENTS_RECONCILE_INTERVAL_MS: '3600000' },
    })
  }, 60_000)
  afterAll(async () => {
    await observer?.close()
    await drop()
  })

  const target = (): ChildServiceTarget => ({
    devnet,
    payer: devnet.accounts.payer2,
    faults: { baseRpc, tempoRpc },
    start: () => spawnService(MAIN, env),
    buy: async (serviceUrl) => {
      const marker = `I restore old sailboats, kill test ${letters()}`
      return {
        url: `${serviceUrl}/api/intake/heart-file`,
        body: doc(marker),
        price: PRICE,
        deliveries: () => heartFileCount(observer, marker),
        received,
        identity: (answer) => answer.heartFileId,
      }
    },
  })

  for (const rail of ['x402-v2', 'mpp'] as const) killScenario(rail, target)
})

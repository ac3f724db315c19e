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
  spawnService,
  startFaultDevnet,
} from '@agents/payments/testing'
import { createTestDatabase, testBackends } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe } from 'vitest'
import { VENUE_CREDENTIAL_HEADER } from '../credentials/actor-middleware.ts'
import { couples } from '../db/schema.ts'
import type { Venue } from '../start.ts'
import { admitPersona, createOwner, HEART } from '../test-helpers.ts'
import { startTestVenue, TEST_DATABASE_URL, testVenueEnv } from '../testing.ts'
import { reportOrderId } from './compatibility-report.ts'

// compatibility_report under every fault of "Paid requests deliver exactly once", on every rail
// and backend. The venue composes the report (no chat model): the faults are the payment's.

const PRICE = 5_000_000n
const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url))

let faults: FaultDevnet
beforeAll(async () => {
  faults = await startFaultDevnet()
}, 60_000)
afterAll(() => faults?.stop())

/**
 * A new order to buy: a fresh owner with a persona in a new couple (the
 * order id is per owner, couple and day). Fixtures go through `fixtures`,
 * a venue on the same database as the one selling.
 */
const reportPurchase = async (serviceUrl: string, fixtures: Venue): Promise<Purchase> => {
  const owner = await createOwner(fixtures)
  const mine = await fetch(`${fixtures.url}/api/personas`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.credential}` },
    body: JSON.stringify({
      handle: `report-${owner.ownerId}`,
      model: 'claude',
      persona_age: '18+',
      heart: HEART,
      ownerId: owner.ownerId,
    }),
  }).then((response) => response.json() as Promise<{ personaId: number }>)
  const theirs = (await admitPersona(fixtures)).answer.json.personaId as number
  const [couple] = await fixtures.deps.database.db
    .insert(couples)
    .values({
      cycleId: `faults-${owner.ownerId}`,
      personaA: Math.min(mine.personaId, theirs),
      personaB: Math.max(mine.personaId, theirs),
    })
    .returning({ id: couples.id })
  const orderId = reportOrderId(owner.ownerId, couple!.id)
  return {
    url: `${serviceUrl}/api/premium/compatibility-report`,
    body: JSON.stringify({ ownerId: owner.ownerId, coupleId: couple!.id }),
    // Authorization carries the MPP payment; the credential travels beside it.
    headers: { [VENUE_CREDENTIAL_HEADER]: owner.credential },
    price: PRICE,
    deliveries: async () => {
      const { rows } = await fixtures.deps.database.client.query(
        `SELECT count(*)::int AS n FROM payment_ledger
          WHERE request_key = $1 AND state = 'settled' AND fulfilment IS NOT NULL`,
        [`report:${orderId}`],
      )
      return (rows[0] as { n: number }).n
    },
    received: (rail: PayerRail) => {
      const { devnet } = faults
      return rail === 'mpp'
        ? devnet.tempoBalance!(devnet.accounts.payee)
        : devnet.usdcBalance(devnet.accounts.payee)
    },
    identity: (answer) => [answer.orderId, answer.receiptId, answer.report],
  }
}

describe.each(testBackends(TEST_DATABASE_URL))(
  'compatibility_report exactly once on $name',
  (backend) => {
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
      buy: () => reportPurchase(venue.url, venue),
    })

    for (const rail of PAYER_RAILS)
      describe(rail, () =>
        exactlyOnceScenarios(rail, target, { databaseFaults: backend.name === 'PostgreSQL' }),
      )
  },
)

describe.runIf(TEST_DATABASE_URL)('compatibility_report when the venue process is killed', () => {
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
    buy: (serviceUrl) => reportPurchase(serviceUrl, observer),
  })

  for (const rail of PAYER_RAILS) killScenario(rail, target)
})

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
import { reportOrderId } from './compatibility/compatibility-report.ts'
import { reportItem } from './compatibility/report-item.ts'
import { VENUE_CREDENTIAL_HEADER } from './credentials/actor-middleware.ts'
import { couples } from './db/schema.ts'
import type { Venue } from './start.ts'
import { admitPersona, createOwner, HEART } from './test-helpers.ts'
import { type ChatStandIn, startChatStandIn } from './testing/chat-stand-in.ts'
import { startTestVenue, TEST_DATABASE_URL, testVenueEnv, VENUE_TEST_DATABASE } from './testing.ts'

// The exactly-once fault matrix on the venue's item that uses every product hook:
// compatibility_report (the order held in the claim's transaction, released when the payment
// fails, delivered once), with a chat model and composed by the venue while the payment settles
// (the sale's own hooks), under every fault of "Paid requests deliver exactly once", on every
// rail and backend, and the process killed between settlement and delivery. The chat stand-in
// answers at once: the faults are the payment's. Every other item has the fast contract
// (paid-items.contract.test.ts) and a real purchase (its *.chain.test.ts); the payments
// package runs the same matrix on its reference item.

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url))

let faults: FaultDevnet
let chat: ChatStandIn
beforeAll(async () => {
  faults = await startFaultDevnet()
  chat = await startChatStandIn()
  chat.answer({ status: 200, content: 'Talk about what a slow Sunday looks like for each of you.' })
}, 60_000)
afterAll(async () => {
  await chat?.close()
  await faults?.stop()
})

const received = (rail: PayerRail) => {
  const { devnet } = faults
  return rail === 'mpp'
    ? devnet.tempoBalance!(devnet.accounts.payee)
    : devnet.usdcBalance(devnet.accounts.payee)
}

/** How many times the ledger delivered the payments made for `requestKey` (0 or 1). */
const delivered = async (fixtures: Venue, requestKey: string) => {
  const { rows } = await fixtures.deps.database.client.query(
    `SELECT count(*)::int AS n FROM payment_ledger
      WHERE request_key = $1 AND state = 'settled' AND fulfilment IS NOT NULL`,
    [requestKey],
  )
  return (rows[0] as { n: number }).n
}

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
    price: reportItem.price!.amount,
    deliveries: () => delivered(fixtures, `report:${orderId}`),
    received,
    identity: (answer) => [answer.orderId, answer.receiptId, answer.report],
  }
}

/** A venue without a chat model composes the report while the payment settles and delivers it at once. */
const NO_CHAT_MODEL = { chatModel: false }

const ITEMS = [
  ['compatibility_report', reportPurchase, {}],
  ['compatibility_report (composed by the venue)', reportPurchase, NO_CHAT_MODEL],
] as const

/** What the report needs: a chat model (unless not). */
const itemEnv = ({ chatModel = true }: { chatModel?: boolean } = {}) => ({
  VENUE_OPEN: 'true',
  ...(chatModel ? { MATCHMAKER_CHAT_URL: chat.url } : {}),
})

describe.each(
  testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE).flatMap((backend) =>
    ITEMS.map(([item, purchase, options]) => ({ ...backend, item, purchase, options })),
  ),
)('$item exactly once on $name', ({ item, purchase, options, ...backend }) => {
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
      env: { ...faults.env(), ...itemEnv(options), PAYMENTS_RECONCILE_INTERVAL_MS: '3600000' },
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
    buy: () => purchase(venue.url, venue),
  })

  // The payments block of /health, once per backend.
  if (item === 'compatibility_report') paymentsHealthScenario(target)
  for (const rail of PAYER_RAILS)
    describe(rail, () =>
      exactlyOnceScenarios(rail, target, { databaseFaults: backend.name === 'PostgreSQL' }),
    )
})

describe.runIf(TEST_DATABASE_URL).each(ITEMS)(
  '%s when the venue process is killed',
  (_, purchase, options) => {
    let drop: () => Promise<void> = async () => {}
    let env: Record<string, string>
    let observer: Venue
    beforeAll(async () => {
      const opened = await createTestDatabase(TEST_DATABASE_URL!, VENUE_TEST_DATABASE)
      drop = opened.drop
      env = await testVenueEnv({
        devnet: faults.devnet,
        env: {
          ...faults.env(),
          ...itemEnv(options),
          DATABASE_URL: opened.url,
          PORT: String(await freePort()),
          HOST: '127.0.0.1',
          PAYMENTS_RECONCILE_INTERVAL_MS: '200',
        },
      })
      observer = await startTestVenue({
        devnet: faults.devnet,
        databaseUrl: opened.url,
        env: { ...itemEnv(options), PAYMENTS_RECONCILE_INTERVAL_MS: '3600000' },
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
      buy: (serviceUrl) => purchase(serviceUrl, observer),
    })

    for (const rail of PAYER_RAILS) killScenario(rail, target)
  },
)

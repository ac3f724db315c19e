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
  spawnService,
  startFaultDevnet,
} from '@agents/payments/testing'
import { createTestDatabase, testBackends } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe } from 'vitest'
import { reportOrderId } from '../compatibility/compatibility-report.ts'
import { VENUE_CREDENTIAL_HEADER } from '../credentials/actor-middleware.ts'
import { couples } from '../db/schema.ts'
import type { Venue } from '../start.ts'
import { admitPersona, createOwner, HEART } from '../test-helpers.ts'
import { startTestVenue, TEST_DATABASE_URL, testVenueEnv } from '../testing.ts'

// The venue's paid items (doc_submit has its own file, intake/doc-submit-faults.test.ts) under
// every fault of "Paid requests deliver exactly once", on every rail and backend. The venue
// composes reports (no chat model): the faults are the payment's.
// A unique marker the safety check passes: no digits (long digit runs read as phone numbers)
// and vowels only (random consonants can spell words the profanity list holds).
const letters = () => Array.from(randomBytes(14), (byte) => 'aeiou'[byte % 5]).join('')
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
    price: 5_000_000n,
    deliveries: async () => {
      const { rows } = await fixtures.deps.database.client.query(
        `SELECT count(*)::int AS n FROM payment_ledger
          WHERE request_key = $1 AND state = 'settled' AND fulfilment IS NOT NULL`,
        [`report:${orderId}`],
      )
      return (rows[0] as { n: number }).n
    },
    received,
    identity: (answer) => [answer.orderId, answer.receiptId, answer.report],
  }
}

const received = (rail: PayerRail) => {
  const { devnet } = faults
  return rail === 'mpp'
    ? devnet.tempoBalance!(devnet.accounts.payee)
    : devnet.usdcBalance(devnet.accounts.payee)
}

/** A featured post for a fresh persona, told apart by its text. */
const featuredPurchase = async (serviceUrl: string, fixtures: Venue): Promise<Purchase> => {
  const { agent, answer } = await admitPersona(fixtures)
  const marker = `Featured sailor seeks a curious crew, fault test ${letters()}`
  return {
    url: `${serviceUrl}/api/featured/post`,
    body: JSON.stringify({ personaId: answer.json.personaId, board: 'seeking', body: marker }),
    headers: { [VENUE_CREDENTIAL_HEADER]: agent.credential },
    price: 50_000_000n,
    servedStatus: 201,
    deliveries: async () => {
      const { rows } = await fixtures.deps.database.client.query(
        'SELECT count(*)::int AS n FROM posts WHERE body = $1 AND featured_until IS NOT NULL',
        [marker],
      )
      return (rows[0] as { n: number }).n
    },
    received,
    identity: (answer) => [answer.orderId, answer.postId],
  }
}

const ITEMS = [
  ['compatibility_report', reportPurchase],
  ['featured_slot', featuredPurchase],
] as const

/** The venue environment the paid items need: boards open, room for every featured purchase. */
const ITEM_ENV = { VENUE_OPEN: 'true', VENUE_FEATURED_SLOTS: '100' }

describe.each(
  testBackends(TEST_DATABASE_URL).flatMap((backend) =>
    ITEMS.map(([item, purchase]) => ({ ...backend, item, purchase })),
  ),
)('$item exactly once on $name', ({ purchase, ...backend }) => {
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
      env: { ...faults.env(), ...ITEM_ENV, PAYMENTS_RECONCILE_INTERVAL_MS: '3600000' },
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

  for (const rail of PAYER_RAILS)
    describe(rail, () =>
      exactlyOnceScenarios(rail, target, { databaseFaults: backend.name === 'PostgreSQL' }),
    )
})

describe.runIf(TEST_DATABASE_URL).each(ITEMS)(
  '%s when the venue process is killed',
  (_, purchase) => {
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
          ...ITEM_ENV,
          DATABASE_URL: opened.url,
          PORT: String(await freePort()),
          HOST: '127.0.0.1',
          PAYMENTS_RECONCILE_INTERVAL_MS: '200',
        },
      })
      observer = await startTestVenue({
        devnet: faults.devnet,
        databaseUrl: opened.url,
        env: { ...ITEM_ENV, PAYMENTS_RECONCILE_INTERVAL_MS: '3600000' },
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

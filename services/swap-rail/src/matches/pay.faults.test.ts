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
  sumBalances,
} from '@agents/payments/testing'
import { postJson } from '@agents/service-kit'
import { createTestDatabase, testBackends } from '@agents/service-kit/db'
import type { Address } from 'viem'
import { afterAll, beforeAll, describe } from 'vitest'
import type { SwapRail } from '../start.ts'
import {
  SWAP_TEST_DATABASE,
  startTestSwapRail,
  TEST_DATABASE_URL,
  testSwapRailEnv,
} from '../testing.ts'

// Paying a match under every fault of "Paid requests deliver exactly once", on every rail and backend.

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url))

let faults: FaultDevnet
beforeAll(async () => {
  faults = await startFaultDevnet()
}, 60_000)
afterAll(() => faults?.stop())

let models = 0

/** A new match on the rail at `serviceUrl`: an offer and an intent for a model of its own. */
const buyMatch = async (serviceUrl: string, counter: SwapRail): Promise<Purchase> => {
  const { devnet } = faults
  const model = `fault-model-${process.pid}-${++models}`
  const offer = await postJson(`${serviceUrl}/v1/offers`, {
    endpoint: 'http://localhost:9/v1',
    payTo: devnet.accounts.payee2,
    model,
    mtok: 1,
    priceUsd: '0.2',
  })
  if (offer.status !== 201) throw new Error(`offer: ${offer.text}`)
  const intent = await postJson(`${serviceUrl}/v1/intents`, { model, mtok: 1, maxPriceUsd: '0.2' })
  const match = intent.json.match as { id: string; gross: string; splitAddress: Address }
  return {
    url: `${serviceUrl}/v1/matches/${match.id}/pay`,
    body: '{}',
    price: BigInt(match.gross),
    deliveries: async () => {
      const { rows } = await counter.deps.database.client.query(
        `SELECT count(*)::int AS n FROM swap_matches WHERE id = $1 AND status = 'paid'`,
        [match.id],
      )
      return (rows[0] as { n: number }).n
    },
    // x402 pays the gross to the split; MPP pays the hub and splits the seller's share out.
    received: (rail: PayerRail) =>
      rail === 'mpp'
        ? sumBalances(devnet.tempoBalance!, [devnet.accounts.payee, devnet.accounts.payee2])
        : devnet.usdcBalance(match.splitAddress),
    identity: (answer) => ({
      id: answer.id,
      status: answer.status,
      payment: answer.payment,
      paidAt: answer.paidAt,
    }),
  }
}

describe.each(testBackends(TEST_DATABASE_URL, SWAP_TEST_DATABASE))(
  'paying a match exactly once on $name',
  (backend) => {
    let rail: SwapRail
    let database: TcpFaultProxy | undefined
    let drop: () => Promise<void> = async () => {}
    beforeAll(async () => {
      const opened = await backend.open()
      drop = opened.drop
      if (opened.url) database = await startTcpFaultProxy(hostPortOf(opened.url))
      rail = await startTestSwapRail({
        devnet: faults.devnet,
        databaseUrl: opened.url && database ? proxiedPostgresUrl(opened.url, database) : undefined,
        env: { ...faults.env(), PAYMENTS_RECONCILE_INTERVAL_MS: '3600000' },
      })
    }, 60_000)
    afterAll(async () => {
      await rail?.close()
      await database?.close()
      await drop()
    })

    const target = (): ExactlyOnceTarget => ({
      devnet: faults.devnet,
      payer: faults.devnet.accounts.payer,
      reconcileNow: () => rail.reconcileNow(),
      healthUrl: () => `${rail.url}/health`,
      faults: { baseRpc: faults.baseRpc, tempoRpc: faults.tempoRpc, database },
      buy: () => buyMatch(rail.url, rail),
    })

    paymentsHealthScenario(target)
    for (const payer of PAYER_RAILS)
      describe(payer, () =>
        exactlyOnceScenarios(payer, target, { databaseFaults: backend.name === 'PostgreSQL' }),
      )
  },
)

// A killed process on PostgreSQL, the deployment that runs replicas; the test process watches
// the same database while the child is down.
describe.runIf(TEST_DATABASE_URL)('paying a match when the rail process is killed', () => {
  let drop: () => Promise<void> = async () => {}
  let env: Record<string, string>
  let observer: SwapRail
  beforeAll(async () => {
    const opened = await createTestDatabase(TEST_DATABASE_URL!, SWAP_TEST_DATABASE)
    drop = opened.drop
    env = testSwapRailEnv({
      devnet: faults.devnet,
      env: {
        ...faults.env(),
        DATABASE_URL: opened.url,
        PORT: String(await freePort()),
        HOST: '127.0.0.1',
        PAYMENTS_RECONCILE_INTERVAL_MS: '200',
      },
    })
    observer = await startTestSwapRail({
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
    buy: (serviceUrl) => buyMatch(serviceUrl, observer),
  })

  for (const payer of PAYER_RAILS) killScenario(payer, target)
})

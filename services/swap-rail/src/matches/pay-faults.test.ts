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
  sumBalances,
  throughProxy,
} from '@agents/payments/testing'
import { postJson } from '@agents/service-kit'
import { createTestDatabase, testBackends } from '@agents/service-kit/db'
import type { Address } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SwapRail } from '../start.ts'
import { startTestSwapRail, TEST_DATABASE_URL, testSwapRailEnv } from '../testing.ts'

// Paying a match under every fault of "Paid requests deliver exactly once", on every rail and backend.

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

let models = 0

/** A new match on the rail at `url`: an offer and an intent for a model of its own. */
const buyMatch = async (
  url: string,
  paid: (matchId: string) => Promise<number>,
): Promise<Purchase> => {
  const model = `fault-model-${process.pid}-${++models}`
  const offer = await postJson(`${url}/v1/offers`, {
    endpoint: 'http://localhost:9/v1',
    payTo: devnet.accounts.payee2,
    model,
    mtok: 1,
    priceUsd: '0.2',
  })
  if (offer.status !== 201) throw new Error(`offer: ${offer.text}`)
  const intent = await postJson(`${url}/v1/intents`, { model, mtok: 1, maxPriceUsd: '0.2' })
  const match = intent.json.match as { id: string; gross: string; splitAddress: Address }
  return {
    url: `${url}/v1/matches/${match.id}/pay`,
    body: '{}',
    price: BigInt(match.gross),
    deliveries: () => paid(match.id),
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

const paidMatches = async (rail: SwapRail, matchId: string) => {
  const { rows } = await rail.deps.database.client.query(
    `SELECT count(*)::int AS n FROM swap_matches WHERE id = $1 AND status = 'paid'`,
    [matchId],
  )
  return (rows[0] as { n: number }).n
}

describe.each(testBackends(TEST_DATABASE_URL))(
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
        devnet,
        databaseUrl: opened.url && database ? proxiedPostgresUrl(opened.url, database) : undefined,
        env: { ...faultEnv(), PAYMENTS_RECONCILE_INTERVAL_MS: '3600000' },
      })
    }, 60_000)
    afterAll(async () => {
      await rail?.close()
      await database?.close()
      await drop()
    })

    const target = (): ExactlyOnceTarget => ({
      devnet,
      payer: devnet.accounts.payer,
      reconcileNow: () => rail.reconcileNow(),
      faults: { baseRpc, tempoRpc, database },
      buy: () => buyMatch(rail.url, (id) => paidMatches(rail, id)),
    })

    it('GET /health reports the facilitator, the chains and the unresolved payments', async () => {
      const health = () =>
        fetch(`${rail.url}/health`).then(async (r) => ({ http: r.status, ...(await r.json()) }))
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
    const opened = await createTestDatabase(TEST_DATABASE_URL!)
    drop = opened.drop
    env = testSwapRailEnv({
      devnet,
      env: {
        ...faultEnv(),
        DATABASE_URL: opened.url,
        PORT: String(await freePort()),
        HOST: '127.0.0.1',
        PAYMENTS_RECONCILE_INTERVAL_MS: '200',
      },
    })
    observer = await startTestSwapRail({
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
    buy: (serviceUrl) => buyMatch(serviceUrl, (id) => paidMatches(observer, id)),
  })

  for (const payer of ['x402-v2', 'mpp'] as const) killScenario(payer, target)
})

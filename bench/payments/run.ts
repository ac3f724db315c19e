// Payments benchmark: paid requests through sell + saleResponse (the payment ledger on
// PGlite, and on PostgreSQL when DATABASE_URL or TEST_DATABASE_URL is set) on
// the devnet, interleaved round by round with the facilitator's own verify +
// settle measured directly. Our overhead is the difference of the medians, as
// a share of the facilitator's time.
import { benchConfig } from '@agents/bench-config'
import { serveLocal, startDevnet } from '@agents/devnet'
import {
  createPaymentLedger,
  createSettlementReader,
  type PaymentsDeps,
  resourceUrl,
  saleResponse,
  sell,
} from '@agents/payments'
import {
  countDeliveries,
  devnetBaseRail,
  openTestShopDatabase,
  paymentSignatureHeader,
  testAnswer,
  testProduct,
} from '@agents/payments/testing'
import { createTestDatabase } from '@agents/service-kit/db'
import { Hono } from 'hono'
import {
  measureDirectSettlement,
  median,
  ms,
  percentile,
  railRequirement,
} from './direct-settlement.ts'
import { profileQueries } from './profile-queries.ts'
import { timedLedger } from './timed-ledger.ts'

const rounds = benchConfig.payments.rounds
const warmUp = benchConfig.payments.warmUpRounds
const serverUrl = benchConfig.payments.serverUrl
// BENCH_PROFILE=1: every SQL statement timed too (patches the drivers).
const queries = benchConfig.payments.profile ? profileQueries() : undefined

const devnet = await startDevnet({ tempo: false })
const facilitator = { url: devnet.facilitator.url }
const rail = devnetBaseRail(devnet)
const requirement = railRequirement(rail)
const product = testProduct('bench_item')

type Backend = {
  name: string
  url: string
  times: Map<string, number[]>
  paid: number[]
  /** The sale and its response alone, inside the route: the rest of `paid` is HTTP and Hono. */
  handler: number[]
  countDelivered: () => Promise<number>
  close: () => Promise<void>
}

/** A server selling one item per paid request, its ledger on `databaseUrl` (PGlite without). */
const startBackend = async (name: string, databaseUrl?: string): Promise<Backend> => {
  const { db, close } = await openTestShopDatabase(databaseUrl)
  const times = new Map<string, number[]>()
  const deps: PaymentsDeps = {
    x402: { rails: [rail], facilitator },
    ledger: timedLedger(createPaymentLedger(db), times),
    chain: createSettlementReader({ baseRpcUrl: devnet.base.rpcUrl }),
    leaseSeconds: 25,
  }
  const handler: number[] = []
  const app = new Hono()
  // A 402 names its resource on the server's own address, never the request's.
  let baseUrl = ''
  app.post('/paid/:n', async (c) => {
    const started = performance.now()
    const outcome = await sell(deps, c.req.raw, {
      price: { amount: 1_000n },
      resource: { url: resourceUrl(baseUrl, c.req.path), description: 'bench item' },
      product,
      order: { item: `bench ${c.req.param('n')}` },
      requestKey: `bench:${c.req.param('n')}`,
    })
    const response = await saleResponse(outcome, { answer: testAnswer })
    handler.push(performance.now() - started)
    return response
  })
  const server = await serveLocal(app.fetch)
  baseUrl = server.url
  return {
    name,
    url: server.url,
    times,
    paid: [],
    handler,
    countDelivered: () => countDeliveries(db),
    close: async () => {
      await server.close()
      await close()
    },
  }
}

const temporary = serverUrl ? await createTestDatabase(serverUrl) : undefined
const backends = [await startBackend('PGlite (in-process)')]
if (temporary) backends.push(await startBackend('PostgreSQL', temporary.url))

const measureDirect = () => measureDirectSettlement(facilitator, devnet.accounts.payer, requirement)
let sold = 0
const measurePaid = async (backend: Backend) => {
  const header = await paymentSignatureHeader(devnet.accounts.payer, requirement)
  const started = performance.now()
  const response = await fetch(`${backend.url}/paid/${++sold}`, {
    method: 'POST',
    headers: { 'payment-signature': header },
  })
  await response.text()
  const elapsed = performance.now() - started
  if (response.status !== 200) throw new Error(`paid request answered ${response.status}`)
  return elapsed
}

/**
 * One phase: `count` rounds after the warm-up, each measuring every path
 * once in a rotating order, so all see the same chain state and machine load.
 */
const runPhase = async (title: string, count: number, { profile = false } = {}) => {
  const direct: number[] = []
  const paths = [null, ...backends]
  for (const backend of backends) backend.paid.length = 0
  for (let round = 0; round < warmUp + count; round++) {
    for (let step = 0; step < paths.length; step++) {
      const path = paths[(round + step) % paths.length]!
      const elapsed = path ? await measurePaid(path) : await measureDirect()
      if (round < warmUp) continue
      if (path) path.paid.push(elapsed)
      else direct.push(elapsed)
    }
    if (round === warmUp - 1) {
      for (const backend of backends) {
        backend.times.clear()
        backend.handler.length = 0
      }
      queries?.pg.clear()
      queries?.pglite.clear()
    }
  }

  console.log(`\n# ${title} (${count} rounds)\n`)
  console.log(
    `facilitator verify + settle, direct (baseline): median ${ms(median(direct))}   p90 ${ms(percentile(direct, 90))}`,
  )
  for (const backend of backends) {
    const overhead = median(backend.paid) - median(direct)
    console.log(`\n## ledger on ${backend.name}`)
    console.log(
      `paid request through sell: median ${ms(median(backend.paid))}   p90 ${ms(percentile(backend.paid, 90))}`,
    )
    console.log(
      `our overhead: ${ms(overhead)} at the median = ${((overhead / median(direct)) * 100).toFixed(1)} % of the facilitator's verify + settle (target <= 5 %)`,
    )
    if (!profile) continue
    const calls = [...backend.times.entries()].map(
      ([name, values]) => `${name} ${ms(median(values))}`,
    )
    const ledger = [...backend.times.values()].reduce((sum, values) => sum + median(values), 0)
    console.log(`ledger calls, median each: ${calls.join(', ')} (sum ${ms(ledger)})`)
    console.log(
      `where the overhead goes (medians): ledger ${ms(ledger)}, HTTP + Hono ${ms(median(backend.paid) - median(backend.handler))}, rest of the sale ${ms(median(backend.handler) - ledger - median(direct))}`,
    )
    const statements = backend.name.startsWith('PGlite') ? queries?.pglite : queries?.pg
    for (const [label, values] of statements ?? []) {
      const each = (values.length / count).toFixed(1)
      console.log(`  ${ms(median(values)).padStart(9)}  x${each}/request  ${label}`)
    }
  }
}

try {
  console.log(
    '# payments benchmark: x402 v2 on the devnet (local Base chain, real USDC and facilitator)',
  )
  // 1. Anvil mines each transaction at once: the facilitator's floor, far faster than any chain.
  await runPhase('instant mining: every transaction mined on arrival', rounds, { profile: true })
  // 2. Blocks every 2 s, as on Base: a facilitator's settle waits for its transaction's block.
  const blockRounds = benchConfig.payments.blockRounds
  if (blockRounds > 0) {
    const chain = devnet.base.publicClient
    await chain.request({ method: 'evm_setAutomine', params: [false] } as never)
    await chain.request({ method: 'evm_setIntervalMining', params: [2] } as never)
    await runPhase("Base's block time: a block every 2 s", blockRounds)
  }
  const expected = warmUp + rounds + (blockRounds > 0 ? warmUp + blockRounds : 0)
  for (const backend of backends) {
    const delivered = await backend.countDelivered()
    if (delivered !== expected)
      throw new Error(`${backend.name}: ${delivered} deliveries for ${expected} payments`)
  }
} finally {
  for (const backend of backends) await backend.close()
  await temporary?.drop()
  await devnet.stop()
}

// The paid compatibility report end to end on the devnet: a new order each
// round (a fresh owner with a filed doc), paid with x402 v2 and answered with
// the venue's composed report, interleaved round by round with the
// facilitator's own verify + settle of the same requirement measured
// directly. The overhead is the difference of the medians, as a share of the
// facilitator's time (target: at most 15 %, report generation included).
// Beside them, the relay: a bare route on the same stack that only forwards
// verify + settle, the floor any paid route's HTTP exchange sets; and the
// ledger floor on each database: the relay plus the two durable writes
// exactly-once needs (a claim row beside /verify, the receipt after
// /settle), the floor of any paid route that keeps a ledger.

import { benchConfig } from '@agents/bench-config'
import type { Venue } from '@agents/dating-venue'
import { ownerWithDoc } from '@agents/dating-venue/bench'
import { startTestVenue } from '@agents/dating-venue/testing'
import { startDevnet } from '@agents/devnet'
import type { RequirementV2 } from '@agents/payments'
import { baseRequirementOf, paymentSignatureHeader } from '@agents/payments/testing'
import { createTestDatabase, PreparingPglite } from '@agents/service-kit/db'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import {
  type BenchClient,
  measureDirectSettlement,
  median,
  ms,
  percentile,
  postJson,
} from '../payments/direct-settlement.ts'
import { startFacilitatorProcess } from '../payments/facilitator-process.ts'
import { measureRelay, startRelay } from '../payments/relay-floor.ts'

const rounds = benchConfig.venue.report.rounds
const warmUp = benchConfig.venue.report.warmUpRounds
const serverUrl = benchConfig.venue.report.serverUrl

const HEART = {
  about: 'I restore old sailboats and read too much history on rainy weekends.',
  seeking: 'Someone patient to take things slow with, who likes the sea.',
  relationship_intent: 'long-term',
  values: ['honesty', 'curiosity', 'kindness'],
  interests: ['sailing', 'history', 'baking'],
}

// How often the facilitator asks for a settle's receipt. At the devnet's 50
// ms, a first check that misses (anvil answers before the receipt can be
// read) waits a whole interval: 24 to 50 % of every path's rounds, and as
// that share nears half, a median jumps between the two modes.
const receiptPollingMs = benchConfig.venue.report.receiptPollingMs
const started = await startDevnet({ tempo: false })
// The facilitator is another service wherever the venue runs: in a process of
// its own, for the baseline and the venue alike. In the bench's process
// (BENCH_FACILITATOR=inproc) its work would take turns on one event loop with
// the venue's, PGlite's synchronous queries above all.
const facilitatorProcess =
  benchConfig.venue.report.facilitator === 'inproc'
    ? undefined
    : await startFacilitatorProcess(started.base.rpcUrl, { receiptPollingMs })
const devnet = facilitatorProcess
  ? { ...started, facilitator: { ...started.facilitator, url: facilitatorProcess.url } }
  : started
const facilitator = { url: devnet.facilitator.url }

// The client every path is timed through: undici's `request` by default, the one the
// payments library calls the facilitator with, so the baseline's too (`fetch`,
// or both: `BENCH_CLIENT=fetch,undici`).
const clients = benchConfig.venue.report.clients as BenchClient[]
type Backend = { name: string; venue: Venue; client: BenchClient; paid: number[] }
const startBackend = async (
  name: string,
  databaseUrl?: string,
  start = startTestVenue,
): Promise<Backend[]> => {
  const venue = await start({ devnet, databaseUrl })
  return clients.map((client) => ({ name: `${name}, client ${client}`, venue, client, paid: [] }))
}

/** A fresh owner with a filed doc: a new order today. Not timed. */
const newOwner = (venue: Venue) => ownerWithDoc(venue, HEART)

const reportRequest = (venue: Venue, owner: { ownerId: number; credential: string }) => ({
  url: `${venue.url}/api/premium/compatibility-report`,
  init: {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.credential}` },
    body: JSON.stringify({ ownerId: owner.ownerId }),
  },
})

/** The venue's own Base requirement, read from a 402 (not timed). */
const requirementOf = async (venue: Venue): Promise<RequirementV2> => {
  const { url, init } = reportRequest(venue, await newOwner(venue))
  return baseRequirementOf(await fetch(url, init))
}

const measureDirect = (requirement: RequirementV2) =>
  measureDirectSettlement(facilitator, devnet.accounts.payer, requirement)

const measurePaid = async (backend: Backend, requirement: RequirementV2) => {
  const { url, init } = reportRequest(backend.venue, await newOwner(backend.venue))
  const header = await paymentSignatureHeader(devnet.accounts.payer, requirement)
  const started = performance.now()
  const { status, answer } = (await postJson(
    backend.client,
    url,
    { ...init.headers, 'payment-signature': header },
    init.body,
  )) as { status: number; answer: { report?: string } }
  const elapsed = performance.now() - started
  if (status !== 200 || !answer.report)
    throw new Error(`paid report answered ${status}: ${JSON.stringify(answer)}`)
  return elapsed
}

const temporary = serverUrl ? await createTestDatabase(serverUrl) : undefined
const backends = await startBackend('PGlite (in-process)')
if (temporary) backends.push(...(await startBackend('PostgreSQL', temporary.url)))
// BENCH_COMPARE=<another checkout of this repository, with node_modules>: its
// venue as well, on databases of its own, measured in the same rounds: a
// change before and after in one run, on the same machine load.
const compared = benchConfig.venue.report.compare
const comparedDatabase = compared && serverUrl ? await createTestDatabase(serverUrl) : undefined
if (compared) {
  const { startTestVenue: startCompared } = (await import(
    `${compared}/services/dating-venue/src/testing.ts`
  )) as { startTestVenue: typeof startTestVenue }
  backends.push(...(await startBackend(`PGlite, ${compared}`, undefined, startCompared)))
  if (comparedDatabase)
    backends.push(
      ...(await startBackend(`PostgreSQL, ${compared}`, comparedDatabase.url, startCompared)),
    )
}

type Relay = { name: string; url: string; client: BenchClient; times: number[] }
// The ledger floor's table sits in the venue's database: on PostgreSQL a plain pool (its two
// small statements unprepared), on PGlite through the statements prepared once, as the venue's.
const floorPool = temporary ? new pg.Pool({ connectionString: temporary.url, max: 10 }) : undefined
// As the services' pools: an idle client cut off (the database dropped at the end) is not a crash.
floorPool?.on('error', () => {})
const floorPglite = new PGlite()
const relayServers = [
  {
    name: 'relay floor (a bare route forwarding verify + settle)',
    ...(await startRelay(facilitator)),
  },
  {
    name: 'ledger floor on PGlite (the relay, a claim row beside verify, the receipt after settle)',
    ...(await startRelay(facilitator, { ledger: new PreparingPglite(floorPglite) })),
  },
  ...(floorPool
    ? [
        {
          name: 'ledger floor on PostgreSQL (the same)',
          ...(await startRelay(facilitator, { ledger: floorPool })),
        },
      ]
    : []),
]
const relays: Relay[] = relayServers.flatMap(({ name, url }) =>
  clients.map((client) => ({ name: `${name}, client ${client}`, url, client, times: [] })),
)

/**
 * One phase: `count` rounds after the warm-up, each measuring every path
 * once in a rotating order, so all see the same chain state and machine load.
 */
const runPhase = async (
  title: string,
  count: number,
  requirements: Map<Backend, RequirementV2>,
) => {
  const direct: number[] = []
  const requirement = requirements.get(backends[0]!)!
  const paths: ('direct' | Relay | Backend)[] = ['direct', ...relays, ...backends]
  for (const backend of backends) backend.paid.length = 0
  for (const relay of relays) relay.times.length = 0
  for (let round = 0; round < warmUp + count; round++) {
    for (let step = 0; step < paths.length; step++) {
      const path = paths[(round + step) % paths.length]!
      if (path === 'direct') {
        const elapsed = await measureDirect(requirement)
        if (round >= warmUp) direct.push(elapsed)
      } else if ('times' in path) {
        const elapsed = await measureRelay(
          path.url,
          devnet.accounts.payer,
          requirement,
          path.client,
        )
        if (round >= warmUp) path.times.push(elapsed)
      } else {
        const elapsed = await measurePaid(path, requirements.get(path)!)
        if (round >= warmUp) path.paid.push(elapsed)
      }
    }
  }
  // Settle times are bimodal on every path: when the facilitator's first
  // receipt check finds nothing yet, viem polls again 50 ms later. The share
  // of such rounds says whether two medians compare like with like.
  const slowAbove = 1.5 * median(direct)
  const slow = (times: number[]) =>
    `${((times.filter((time) => time > slowAbove).length / times.length) * 100).toFixed(0)} %`
  const overhead = (times: number[]) => {
    const extra = median(times) - median(direct)
    return `+${ms(extra)} at the median = ${((extra / median(direct)) * 100).toFixed(1)} % of the facilitator's verify + settle; ratio ${(median(times) / median(direct)).toFixed(2)}x`
  }
  console.log(`\n# ${title} (${count} rounds)\n`)
  console.log(
    `facilitator verify + settle, direct (baseline): median ${ms(median(direct))}   p90 ${ms(percentile(direct, 90))}   slow rounds ${slow(direct)}`,
  )
  for (const relay of relays) {
    console.log(
      `\n${relay.name}: median ${ms(median(relay.times))}   p90 ${ms(percentile(relay.times, 90))}   slow rounds ${slow(relay.times)}`,
    )
    console.log(`overhead: ${overhead(relay.times)}`)
  }
  for (const backend of backends) {
    console.log(`\n## venue on ${backend.name}`)
    console.log(
      `paid report (HTTP, checks, ledger, settle, report, delivery): median ${ms(median(backend.paid))}   p90 ${ms(percentile(backend.paid, 90))}   slow rounds ${slow(backend.paid)}`,
    )
    console.log(`overhead: ${overhead(backend.paid)} (target <= 15 %)`)
  }
}

try {
  console.log(
    `# compatibility report benchmark: x402 v2 on the devnet, the venue composing the report, the facilitator ${facilitatorProcess ? 'in a process of its own' : "in the bench's process"}`,
  )
  const requirements = new Map(
    await Promise.all(
      backends.map(async (backend) => [backend, await requirementOf(backend.venue)] as const),
    ),
  )
  // 1. Anvil mines each transaction at once: the facilitator's floor, far faster than any chain.
  await runPhase('instant mining: every transaction mined on arrival', rounds, requirements)
  // 2. Blocks every 2 s, as on Base: a settle waits for its transaction's block.
  const blockRounds = benchConfig.venue.report.blockRounds
  if (blockRounds > 0) {
    const chain = devnet.base.publicClient
    await chain.request({ method: 'evm_setAutomine', params: [false] } as never)
    await chain.request({ method: 'evm_setIntervalMining', params: [2] } as never)
    await runPhase("Base's block time: a block every 2 s", blockRounds, requirements)
  }
} finally {
  for (const venue of new Set(backends.map((backend) => backend.venue))) await venue.close()
  for (const relay of relayServers) await relay.close()
  await floorPool?.end()
  await floorPglite.close()
  await temporary?.drop()
  await comparedDatabase?.drop()
  facilitatorProcess?.stop()
  await devnet.stop()
}
// The venue's test harness keeps a shared embeddings stand-in for the process's life.
process.exit(0)

// Swap-rail benchmark: intent-to-match throughput on PostgreSQL (50 clients,
// 1,000 open offers over 10 models) beside pgbench's TPC-B-like script (50
// clients) on the same server, interleaved round by round in the same run.
// The ratio matches/s ÷ pgbench tps is what to compare across runs. The book
// is audited afterwards and any broken rule fails the run.
// The rail runs as configured for a transaction pooler too
// (DATABASE_POOL_MODE=transaction: every statement unnamed, parsed and
// planned per call), on the same book, round by round: the ratio
// unprepared ÷ prepared is the cost of giving up named statements. With
// BENCH_PGBOUNCER_URL (or TEST_PGBOUNCER_URL), a third rail goes through
// PgBouncer in transaction mode itself.

import { execFile } from 'node:child_process'
import { availableParallelism } from 'node:os'
import { promisify } from 'node:util'
import { benchConfig, skipWithoutPostgres } from '@agents/bench-config'
import { devnetEnv, startDevnet } from '@agents/devnet'
import { createTestDatabase, throughPooler } from '@agents/service-kit/db'
import pg from 'pg'
import { checkBook } from './check-book.ts'
import { loadIntents } from './load-intents.ts'
import { type CpuCores, measureCpu } from './measure-cpu.ts'
import { runPgbench } from './run-pgbench.ts'
import { seedOffers } from './seed-offers.ts'
import { startServer } from './start-server.ts'

const seconds = benchConfig.swapRail.seconds
const rounds = benchConfig.swapRail.rounds
const poolMax = benchConfig.swapRail.poolMax
const serverUrl = benchConfig.swapRail.databaseUrl
if (!serverUrl) {
  skipWithoutPostgres('the swap-rail benchmark')
  process.exit(0)
}
const CLIENTS = 50
const MODELS = [
  'llama-3.3-70b-instruct',
  'llama-3.1-8b-instruct',
  'qwen-2.5-72b-instruct',
  'qwen-2.5-coder-32b',
  'mistral-large-2411',
  'mixtral-8x22b-instruct',
  'deepseek-v3',
  'deepseek-r1',
  'gemma-2-27b-it',
  'phi-4',
] as const

const format = (value: number) => Math.round(value).toLocaleString('en-US')
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length
const showCpu = (cpu: CpuCores, perUnit: number, unit: string, generator: string) => {
  const parts = [`postgres ${cpu.postgres.toFixed(2)}`, `${generator} ${cpu.generator.toFixed(2)}`]
  if (cpu.server > 0) parts.push(`swap-rail server ${cpu.server.toFixed(2)}`)
  parts.push(`rest of the machine ${cpu.other.toFixed(2)}`)
  const each = [`postgres ${format((cpu.postgres * 1e6) / perUnit)} us`]
  if (cpu.server > 0) each.push(`server ${format((cpu.server * 1e6) / perUnit)} us`)
  console.log(`    CPU in cores: ${parts.join(', ')}; per ${unit}: ${each.join(', ')}`)
}

// pgbench's clients and the server's pool must fit beside whatever else is connected.
const admin = new pg.Client({ connectionString: serverUrl })
await admin.connect()
const { rows } = await admin.query<{ max: string; used: string }>(
  "SELECT current_setting('max_connections') AS max, (SELECT count(*) FROM pg_stat_activity) AS used",
)
await admin.end()
if (Number(rows[0]!.used) + CLIENTS + poolMax + 2 > Number(rows[0]!.max))
  throw new Error(`max_connections ${rows[0]!.max} is too low for ${CLIENTS} + pool ${poolMax}`)

const devnet = await startDevnet({ tempo: false })
const railDatabase = await createTestDatabase(serverUrl)
const pgbenchDatabase = await createTestDatabase(serverUrl)
const audit = new pg.Pool({ connectionString: railDatabase.url, max: 1 })
const matchCount = async () =>
  Number((await audit.query<{ n: string }>('SELECT count(*) AS n FROM swap_matches')).rows[0]!.n)
type Rail = Awaited<ReturnType<typeof startServer>>
type Variant = { name: string; env: Record<string, string>; rail?: Rail; rates: number[] }
const { pgbouncerUrl } = benchConfig.swapRail
const variants: Variant[] = [
  { name: 'prepared', env: {}, rates: [] },
  {
    name: 'unprepared',
    env: { DATABASE_POOL_MODE: 'transaction', DATABASE_DIRECT_URL: railDatabase.url },
    rates: [],
  },
  ...(pgbouncerUrl
    ? [
        {
          name: 'pgbouncer',
          env: {
            DATABASE_URL: throughPooler(pgbouncerUrl, railDatabase.url),
            DATABASE_POOL_MODE: 'transaction',
            DATABASE_DIRECT_URL: railDatabase.url,
          },
          rates: [],
        },
      ]
    : []),
]
let ok = false
try {
  await promisify(execFile)('pgbench', ['-i', '-q', '-s', '10', pgbenchDatabase.url])
  for (const variant of variants)
    variant.rail = await startServer({
      ...devnetEnv(devnet),
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: railDatabase.url,
      DATABASE_POOL_MAX: String(poolMax),
      SWAP_SWEEP_INTERVAL_MS: '3600000',
      ...variant.env,
    })
  const { bookOffers, offerMtok, warmUpSeconds } = benchConfig.swapRail
  await seedOffers(variants[0]!.rail!.url, { count: bookOffers, models: MODELS, mtok: offerMtok })
  // What others already use of the machine (shared runners): a noisy run shows here.
  const quiet = measureCpu()
  await new Promise((done) => setTimeout(done, 1000))
  console.log(
    `# swap-rail benchmark (${rounds} rounds of ${seconds} s, ${CLIENTS} clients, ` +
      `${availableParallelism()} cores, server pool ${poolMax}, ${bookOffers.toLocaleString('en-US')} offers of ${offerMtok.join(' to ')} MTok over ${MODELS.length} models)`,
  )
  console.log(`machine busy before the load: ${quiet(1).machine.toFixed(2)} cores\n`)
  // Warm-up: the server's JIT and both databases' caches.
  await runPgbench(pgbenchDatabase.url, { clients: CLIENTS, seconds: warmUpSeconds })
  for (const variant of variants)
    await loadIntents(variant.rail!.url, {
      models: MODELS,
      connections: CLIENTS,
      seconds: warmUpSeconds,
      seed: 99,
    })

  const tps: number[] = []
  const rates: number[] = []
  const p99s: number[] = []
  // The rails' pools (and PgBouncer's) let idle connections go after 10 s:
  // pgbench's clients wait for the room instead of meeting max_connections.
  const roomForPgbench = async () => {
    for (let waited = 0; waited < 30; waited++) {
      const { rows } = await audit.query<{ free: number }>(
        "SELECT current_setting('max_connections')::int - count(*)::int AS free FROM pg_stat_activity",
      )
      if (rows[0]!.free >= CLIENTS + 5) return
      await new Promise((done) => setTimeout(done, 1000))
    }
  }
  const pgbenchRound = async (round: number) => {
    await roomForPgbench()
    const meter = measureCpu()
    const started = performance.now()
    const result = await runPgbench(pgbenchDatabase.url, { clients: CLIENTS, seconds })
    const cpu = meter((performance.now() - started) / 1000)
    tps.push(result.tps)
    console.log(
      `round ${round}  pgbench TPC-B      ${format(result.tps).padStart(6)} tps        ` +
        `latency average ${result.latencyMs.toFixed(1)} ms`,
    )
    showCpu(cpu, result.tps, 'transaction', 'pgbench')
  }
  // Microseconds of CPU per match, round by round: what each variant costs the database and the rail.
  const cpuPerMatch = new Map<string, { postgres: number[]; server: number[] }>()
  const railRound = async (round: number, variant: Variant) => {
    const rail = variant.rail!
    const before = await matchCount()
    const meter = measureCpu({ serverPid: rail.pid })
    const started = performance.now()
    const result = await loadIntents(rail.url, {
      models: MODELS,
      connections: CLIENTS,
      seconds,
      seed: round,
    })
    const elapsed = (performance.now() - started) / 1000
    const cpu = meter(elapsed)
    const rate = ((await matchCount()) - before) / elapsed
    variant.rates.push(rate)
    if (variant === variants[0]) {
      rates.push(rate)
      p99s.push(result.latency.p99)
    }
    const spent = cpuPerMatch.get(variant.name) ?? { postgres: [], server: [] }
    spent.postgres.push((cpu.postgres * 1e6) / rate)
    spent.server.push((cpu.server * 1e6) / rate)
    cpuPerMatch.set(variant.name, spent)
    console.log(
      `round ${round}  rail ${variant.name.padEnd(10)} ${format(rate).padStart(6)} matches/s  ` +
        `latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms  ` +
        `(${format(result.requests)} requests, ${result.non2xx} non-2xx, ${result.errors} errors)`,
    )
    showCpu(cpu, rate, 'match', 'autocannon')
  }
  // ABBA order, so drift over the run falls on every side.
  const steps = [
    pgbenchRound,
    ...variants.map((variant) => (round: number) => railRound(round, variant)),
  ]
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? steps : [...steps].reverse()
    for (const step of order) await step(round)
  }

  console.log(
    `\npgbench TPC-B (baseline) ${format(mean(tps))} tps; swap rail ${format(mean(rates))} matches/s, ` +
      `p99 at most ${Math.max(...p99s)} ms; ratio ${(mean(rates) / mean(tps)).toFixed(2)}x (goal 0.5x)\n`,
  )
  const [prepared, ...others] = variants
  const ratio = (value: number, base: number, unit = '') =>
    `${format(value)} ÷ ${format(base)}${unit} = ${(value / base).toFixed(2)}x`
  const cpuOf = (variant: Variant, side: 'postgres' | 'server') =>
    mean(cpuPerMatch.get(variant.name)![side])
  for (const variant of others)
    console.log(
      `rail ${variant.name} ÷ prepared (DATABASE_POOL_MODE=transaction${variant.name === 'pgbouncer' ? ', through PgBouncer' : ''}): ` +
        `matches/s ${ratio(mean(variant.rates), mean(prepared!.rates))}; CPU per match, ` +
        `PostgreSQL ${ratio(cpuOf(variant, 'postgres'), cpuOf(prepared!, 'postgres'), ' us')}, ` +
        `rail ${ratio(cpuOf(variant, 'server'), cpuOf(prepared!, 'server'), ' us')}`,
    )
  if (!pgbouncerUrl) console.log('(BENCH_PGBOUNCER_URL unset: not measured through PgBouncer)')
  console.log('')
  const book = await checkBook(audit)
  console.log(
    Object.entries(book.stats)
      .map(([name, value]) => `${name} ${format(value)}`)
      .join(', '),
  )
  for (const [name, value] of Object.entries(book.broken)) console.log(`${name}: ${value}`)
  if (book.stats['offers filled'] === 0) console.log('no offer filled up: run it longer')
  console.log(book.ok ? 'book audit: ok' : 'book audit: FAILED')
  ok = book.ok
} finally {
  for (const variant of variants) await variant.rail?.stop()
  await audit.end()
  await devnet.stop()
  await railDatabase.drop()
  await pgbenchDatabase.drop()
}
process.exitCode = ok ? 0 : 1

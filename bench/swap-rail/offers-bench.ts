// Swap-rail benchmark of the free book read: GET /v1/offers?limit=200 over a
// book of 200 open offers on PostgreSQL, beside the same JSON answered by a
// bare node:http server (bare-server.ts) in the same run. Both run in their own
// process; the figures are the sequential median latency and the throughput
// under autocannon, each as a ratio to the bare server's.

import { rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { benchConfig, skipWithoutPostgres } from '@agents/bench-config'
import { devnetEnv, startDevnet } from '@agents/devnet'
import { createTestDatabase } from '@agents/service-kit/db'
import autocannon from 'autocannon'
import { measureCpu } from './measure-cpu.ts'
import { seedOffers } from './seed-offers.ts'
import { startServer } from './start-server.ts'

const seconds = benchConfig.swapRail.offers.seconds
const rounds = benchConfig.swapRail.offers.rounds
const sequential = benchConfig.swapRail.offers.sequential
const connections = benchConfig.swapRail.offers.connections
const serverUrl = benchConfig.swapRail.databaseUrl
if (!serverUrl) {
  skipWithoutPostgres('the offers benchmark')
  process.exit(0)
}
const OFFERS = 200
const PATH = `/v1/offers?limit=${OFFERS}`
const MODELS = ['llama-3.3-70b-instruct', 'qwen-2.5-72b-instruct', 'deepseek-v3', 'phi-4']

const format = (value: number) => Math.round(value).toLocaleString('en-US')
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}
const ratio = (value: number, base: number) => `${(value / base).toPrecision(3)}x`

type Target = { name: string; url: string; pid: number }

/** Milliseconds per request, one request at a time, the whole body read. */
const sequentialTimes = async (target: Target, count: number) => {
  const times: number[] = []
  for (let index = 0; index < count; index++) {
    const started = performance.now()
    const response = await fetch(`${target.url}${PATH}`)
    await response.arrayBuffer()
    times.push(performance.now() - started)
    if (response.status !== 200) throw new Error(`${target.name} answered ${response.status}`)
  }
  return times
}

/** Requests per second under `connections` for `duration` s, and the CPU each request cost. */
const throughput = async (target: Target, duration: number) => {
  const meter = measureCpu({ serverPid: target.pid })
  const started = performance.now()
  const result = await autocannon({ url: `${target.url}${PATH}`, connections, duration })
  const cpu = meter((performance.now() - started) / 1000)
  if (result.non2xx || result.errors)
    throw new Error(`${target.name}: ${result.non2xx} non-2xx, ${result.errors} errors`)
  const rate = result.requests.average
  return { rate, serverUs: (cpu.server * 1e6) / rate, postgresUs: (cpu.postgres * 1e6) / rate }
}

const devnet = await startDevnet({ tempo: false })
const database = await createTestDatabase(serverUrl)
const bodyFile = join(tmpdir(), `swap-rail-offers-${process.pid}.json`)
const stops: (() => Promise<void>)[] = []
try {
  const rail = await startServer({
    ...devnetEnv(devnet),
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    PORT: '0',
    DATABASE_URL: database.url,
    SWAP_SWEEP_INTERVAL_MS: '3600000',
  })
  stops.push(rail.stop)
  await seedOffers(rail.url, { count: OFFERS, models: MODELS })
  const answer = await fetch(`${rail.url}${PATH}`)
  const body = await answer.text()
  const listed = (JSON.parse(body) as { offers: unknown[] }).offers.length
  if (listed !== OFFERS) throw new Error(`the rail listed ${listed} offers, not ${OFFERS}`)
  writeFileSync(bodyFile, body)
  const bare = await startServer(
    { BODY_FILE: bodyFile },
    { script: fileURLToPath(new URL('./bare-server.ts', import.meta.url)) },
  )
  stops.push(bare.stop)
  const targets: Target[] = [
    { name: 'bare node:http, same JSON (baseline)', ...bare },
    { name: 'swap rail GET /v1/offers?limit=200', ...rail },
  ]
  // What others already use of the machine (shared runners): a noisy run shows here.
  const quiet = measureCpu()
  await new Promise((done) => setTimeout(done, 1000))
  console.log(
    `# swap-rail offers read (${OFFERS} open offers, ${body.length.toLocaleString('en-US')} bytes; ` +
      `${rounds} rounds: ${sequential} sequential requests, then ${connections} connections for ${seconds} s)`,
  )
  console.log(`machine busy before the load: ${quiet(1).machine.toFixed(2)} cores\n`)
  // Warm-up: JIT, the pool's connections, the prepared statement.
  for (const target of targets) {
    await sequentialTimes(target, 50)
    await throughput(target, 1)
  }
  const results = new Map(
    targets.map((target) => [target, { medians: [] as number[], rates: [] as number[] }]),
  )
  // ABBA order, so drift over the run falls on both sides.
  for (let round = 1; round <= rounds; round++) {
    for (const target of round % 2 === 1 ? targets : [...targets].reverse()) {
      const times = await sequentialTimes(target, sequential)
      const load = await throughput(target, seconds)
      results.get(target)!.medians.push(median(times))
      results.get(target)!.rates.push(load.rate)
      console.log(
        `round ${round}  ${target.name.padEnd(38)} median ${median(times).toFixed(2).padStart(6)} ms  ` +
          `${format(load.rate).padStart(6)} req/s  CPU per request: server ${format(load.serverUs)} us, ` +
          `postgres ${format(load.postgresUs)} us`,
      )
    }
  }
  const [base, measured] = targets.map((target) => results.get(target)!)
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length
  console.log(
    `\nsequential median: rail ${median(measured!.medians).toFixed(2)} ms, ` +
      `bare ${median(base!.medians).toFixed(2)} ms, ratio ${ratio(median(measured!.medians), median(base!.medians))}`,
  )
  console.log(
    `throughput: rail ${format(mean(measured!.rates))} req/s, bare ${format(mean(base!.rates))} req/s, ` +
      `ratio ${ratio(mean(measured!.rates), mean(base!.rates))}`,
  )
} finally {
  for (const stop of stops.reverse()) await stop()
  await devnet.stop()
  await database.drop()
  rmSync(bodyFile, { force: true })
}

// What the swap rail's request limits and book bounds cost per request: the
// same routes answered by the rail as it starts (limits and bounds on) and by
// a second app built from the same deps without them, in the same process, in
// alternating rounds. Per store: PGlite (counters in memory) and PostgreSQL
// (counters in the shared UNLOGGED table, the bound under an advisory lock).
// Figures: sequential median latency (one request at a time), requests per
// second with BENCH_CONNECTIONS at once and this process's CPU per request
// then (the limiter's Node side; PostgreSQL's share is not counted). Then, with the default settings, how
// many of 1,500 offers posted from one address are taken. BENCH_BOUNDS=off
// leaves the book bound out of the "on" app, to tell its share apart.
import { benchConfig, skipWithoutPostgres } from '@agents/bench-config'
import { createLogger, serve } from '@agents/service-kit'
import { createTestDatabase } from '@agents/service-kit/db'
import { buildApp, readConfig, startSwapRail } from '@agents/swap-rail'

const rounds = benchConfig.swapRail.limits.rounds
const sequential = benchConfig.swapRail.limits.sequential
const concurrent = benchConfig.swapRail.limits.concurrent
const connections = benchConfig.swapRail.limits.connections
const serverUrl = benchConfig.swapRail.databaseUrl
if (!serverUrl) {
  skipWithoutPostgres('the rail limits benchmark')
  process.exit(0)
}

// Payment settings that are never used (nothing here pays), as the rail's tests use.
const PAYMENTS = {
  PAYMENTS_DEVNET: '1',
  PAYMENTS_FACILITATOR_URL: 'http://127.0.0.1:9',
  PAYMENTS_PAY_TO: '0x3aA62bAb8c47716eE13421d0620C9FC9740A5A62',
}
const BASE_ENV = {
  ...PAYMENTS,
  LOG_LEVEL: 'silent',
  PORT: '0',
  DATA_DIR: 'memory://',
  SWAP_SWEEP_INTERVAL_MS: '3600000',
  // The bench names its clients in X-Forwarded-For, as a load balancer would.
  TRUST_FORWARDED_FOR: '1',
}
// Counted as usual, never met: the cost measured is the counting.
const NEVER_MET = {
  RATE_LIMIT_READ: '999999999/60',
  RATE_LIMIT_ANONYMOUS_WRITE: '999999999/60',
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}
const us = (ms: number) => `${Math.round(ms * 1000)} us`

/** A route under test: the request for the nth call (its client address included). */
type Route = { name: string; request: (n: number) => { path: string; init: RequestInit } }

let clients = 0
/** A client address of its own for each call (198.18.0.0/15, the benchmarking range). */
const freshAddress = () => {
  const n = ++clients
  return `198.${18 + ((n >> 16) & 1)}.${(n >> 8) & 255}.${n & 255}`
}

const call = async (base: string, route: Route, n: number) => {
  const { path, init } = route.request(n)
  const response = await fetch(`${base}${path}`, init)
  await response.arrayBuffer()
  if (response.status >= 300) throw new Error(`${route.name} answered ${response.status}`)
}

const sequentialMedian = async (base: string, route: Route) => {
  const times: number[] = []
  for (let n = 0; n < sequential; n++) {
    const started = performance.now()
    await call(base, route, n)
    times.push(performance.now() - started)
  }
  return median(times)
}

/** Requests per second with `connections` at once, and this process's CPU per request (server and client: the client's share is the same on and off). */
const throughput = async (base: string, route: Route) => {
  let next = 0
  const started = performance.now()
  const cpu = process.cpuUsage()
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < concurrent) await call(base, route, next++)
    }),
  )
  const used = process.cpuUsage(cpu)
  return {
    rate: (concurrent * 1000) / (performance.now() - started),
    cpuMs: (used.user + used.system) / 1000 / concurrent,
  }
}

const measureStore = async (store: string, databaseUrl: string | undefined) => {
  const env = {
    ...BASE_ENV,
    ...NEVER_MET,
    // BENCH_BOUNDS=off: the request limits alone (the bounds' share is the difference).
    ...(!benchConfig.swapRail.limits.bounds ? { SWAP_MAX_OPEN_INTENTS_PER_CLIENT: 'off' } : {}),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  }
  const rail = await startSwapRail(readConfig(env), env)
  const bare = await serve(buildApp({ ...rail.deps, bounds: {} }), {
    port: 0,
    logger: createLogger({ name: 'bench', level: 'silent' }),
  })
  try {
    const posted = await fetch(`${rail.url}/v1/offers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        endpoint: 'https://seller.example/v1',
        payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        model: 'bench-read',
        mtok: 1,
        priceUsd: '1',
      }),
    })
    const offerId = ((await posted.json()) as { offer: { id: string } }).offer.id
    const routes: Route[] = [
      {
        name: 'GET /v1/offers/:id (read)',
        // 200 clients taking turns: a counter each, updated again and again.
        request: (n) => ({
          path: `/v1/offers/${offerId}`,
          init: { headers: { 'x-forwarded-for': `198.19.255.${n % 200}` } },
        }),
      },
      {
        name: 'POST /v1/intents (anonymous-write + open-intents bound)',
        // Each from a new client, waiting (no offer of its model): a new counter and a bound counted each time.
        request: () => ({
          path: '/v1/intents',
          init: {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': freshAddress() },
            body: JSON.stringify({ model: 'bench-waiting', mtok: 1, maxPriceUsd: '1' }),
          },
        }),
      },
    ]
    for (const route of routes) {
      const arms = { off: bare.url, on: rail.url }
      // Warm both up, then alternate which goes first.
      for (const base of Object.values(arms))
        for (let n = 0; n < 100; n++) await call(base, route, n)
      const medians: Record<'off' | 'on', number[]> = { off: [], on: [] }
      const rates: Record<'off' | 'on', number[]> = { off: [], on: [] }
      const cpus: Record<'off' | 'on', number[]> = { off: [], on: [] }
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)
        for (const arm of order) medians[arm].push(await sequentialMedian(arms[arm], route))
        for (const arm of order) {
          const { rate, cpuMs } = await throughput(arms[arm], route)
          rates[arm].push(rate)
          cpus[arm].push(cpuMs)
        }
      }
      const [off, on] = [median(medians.off), median(medians.on)]
      const [offRate, onRate] = [median(rates.off), median(rates.on)]
      const [offCpu, onCpu] = [median(cpus.off), median(cpus.on)]
      console.log(
        `${store} | ${route.name} | median off ${us(off)}, on ${us(on)}: +${us(on - off)} per request (${(on / off).toFixed(2)}x) | ${connections} at once: off ${Math.round(offRate)} req/s, on ${Math.round(onRate)} req/s (${(onRate / offRate).toFixed(2)}x), Node CPU per request off ${us(offCpu)}, on ${us(onCpu)}: +${us(onCpu - offCpu)}`,
      )
    }
  } finally {
    await bare.close()
    await rail.close()
  }
}

/** With the default settings: how many of 1,500 offers (`floodOffers`) from one address the rail takes. */
const floodOffers = async () => {
  const env = { ...BASE_ENV, TRUST_FORWARDED_FOR: 'false' }
  const rail = await startSwapRail(readConfig(env), env)
  try {
    const statuses = new Map<number, number>()
    for (let n = 0; n < benchConfig.swapRail.limits.floodOffers; n++) {
      const response = await fetch(`${rail.url}/v1/offers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          endpoint: 'https://seller.example/v1',
          payTo: `0x${(n + 1).toString(16).padStart(40, '0')}`,
          model: 'bench-flood',
          mtok: 1,
          priceUsd: '1',
        }),
      })
      await response.arrayBuffer()
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
    }
    console.log(
      `defaults, PGlite | ${benchConfig.swapRail.limits.floodOffers.toLocaleString('en-US')} POST /v1/offers from one address (each its own payTo) | ${[...statuses].map(([status, count]) => `${count} x ${status}`).join(', ')}`,
    )
  } finally {
    await rail.close()
  }
}

console.log(
  `swap-rail limits bench: ${rounds} rounds, ${sequential} sequential and ${concurrent} concurrent requests per arm per round, ${connections} at once`,
)
await measureStore('PGlite, memory counters', undefined)
let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined
try {
  database = await createTestDatabase(serverUrl)
} catch (error) {
  console.log(`PostgreSQL at ${serverUrl} not reachable (${(error as Error).message}): skipped`)
}
if (database) {
  try {
    await measureStore('PostgreSQL, shared counters', database.url)
  } finally {
    await database.drop()
  }
}
await floodOffers()

// What a request limit costs a venue route: the same routes served by two
// apps built on one venue's dependencies, one with the request limits and
// one without, measured in the same rounds (alternating which goes first),
// on PGlite (counters in memory) and on PostgreSQL (counters in the shared
// `rate_limits` table, one upsert per request). The limits are set so high
// that nothing is refused: what is measured is counting and the headers.
//
//   npx tsx bench/dating-venue/limits-bench.ts
//
// BENCH_ROUNDS (20) of BENCH_BATCH (50) sequential requests per app and
// route; BENCH_DATABASE_URL (else TEST_DATABASE_URL, else
// postgres://postgres@127.0.0.1:5432/test; `none` skips PostgreSQL).

import { benchConfig } from '@agents/bench-config'
import { buildApp } from '@agents/dating-venue'
import { VENUE_COUNTING, VENUE_LIMIT_DEFAULTS } from '@agents/dating-venue/bench'
import { startTestVenue } from '@agents/dating-venue/testing'
import { createRequestLimits, type RunningServer, startTestServer } from '@agents/service-kit'
import { createTestDatabase } from '@agents/service-kit/db'
import { percentile } from '../payments/direct-settlement.ts'

const ROUNDS = benchConfig.venue.limits.rounds
const BATCH = benchConfig.venue.limits.batch
const serverUrl = benchConfig.venue.limits.databaseUrl ?? 'none'

/** A board read (one query) and the cheapest write (a body refused before any query). */
const ROUTES = [
  { name: 'GET /api/boards/seeking', method: 'GET', path: '/api/boards/seeking' },
  { name: 'POST /api/report (400)', method: 'POST', path: '/api/report', body: '{}' },
] as const

const never = Object.fromEntries(
  Object.keys(VENUE_LIMIT_DEFAULTS).map((name) => [
    name,
    { points: 1_000_000_000, windowSeconds: 3600 },
  ]),
) as Record<keyof typeof VENUE_LIMIT_DEFAULTS, { points: number; windowSeconds: number }>

const timeBatch = async (server: RunningServer, route: (typeof ROUTES)[number]) => {
  const times: number[] = []
  for (let index = 0; index < BATCH; index++) {
    const started = performance.now()
    const response = await fetch(`${server.url}${route.path}`, {
      method: route.method,
      ...('body' in route
        ? { body: route.body, headers: { 'content-type': 'application/json' } }
        : {}),
    })
    await response.arrayBuffer()
    times.push(performance.now() - started)
    if (response.status === 429) throw new Error('a limit refused the bench: raise its points')
  }
  return times
}

const measure = async (backend: string, databaseUrl: string | undefined) => {
  const venue = await startTestVenue({ databaseUrl })
  const passthrough = async (_c: unknown, next: () => Promise<void>) => next()
  const off = await startTestServer(buildApp(venue.deps, { gate: passthrough }))
  const limits = await createRequestLimits({
    service: 'dating-venue',
    policies: never,
    counters: { database: venue.deps.database },
    ...VENUE_COUNTING,
    trustForwardedFor: false,
  })
  const on = await startTestServer(buildApp(venue.deps, { gate: passthrough, limits }))
  const check = await fetch(`${on.url}/api/boards/seeking`)
  if (!check.headers.get('ratelimit')) throw new Error('the limited app sent no RateLimit header')
  try {
    for (const route of ROUTES) {
      const times = { off: [] as number[], on: [] as number[] }
      // Warm-up: JIT, prepared statements, the counter's row.
      await timeBatch(off, route)
      await timeBatch(on, route)
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)
        for (const which of order)
          times[which].push(...(await timeBatch(which === 'on' ? on : off, route)))
      }
      const [offMedian, onMedian] = [percentile(times.off, 50), percentile(times.on, 50)]
      console.log(
        `| ${backend} | ${route.name} | ${offMedian.toFixed(3)} ms (p90 ${percentile(times.off, 90).toFixed(3)}) | ${onMedian.toFixed(3)} ms (p90 ${percentile(times.on, 90).toFixed(3)}) | ${onMedian >= offMedian ? '+' : ''}${(onMedian - offMedian).toFixed(3)} ms = **${(onMedian / offMedian).toFixed(2)}x** |`,
      )
    }
  } finally {
    await on.close()
    await off.close()
    await venue.close()
  }
}

console.log(
  `${ROUNDS} rounds x ${BATCH} sequential requests per app and route (${ROUNDS * BATCH} each)\n`,
)
console.log('| counters | route | limits off (median) | limits on (median) | cost |')
console.log('|---|---|---|---|---|')
await measure('memory (PGlite)', undefined)
if (serverUrl !== 'none') {
  const database = await createTestDatabase(serverUrl)
  try {
    await measure('PostgreSQL', database.url)
  } finally {
    await database.drop()
  }
}
process.exit(0)

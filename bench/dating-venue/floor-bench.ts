// Live floor benchmark: N open `GET /api/floor` event streams on one venue
// replica (PostgreSQL), served by the shared poller, beside the per-stream
// polling the route did before (each stream reading the floor every second:
// `readFloor` per stream, run in-process against the same database), measured
// in the same run: database transactions per second (pg_stat_database), the
// SELECTs the venue built, the venue process's CPU; then how long one post
// takes to reach every stream, and how long closing the server (what SIGTERM
// runs) takes with every stream open.
//
//   npx tsx bench/dating-venue/floor-bench.ts
//
// BENCH_STREAMS (default 1000), BENCH_WINDOW_MS (default 20000),
// BENCH_DATABASE_URL (else TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test).

import http from 'node:http'
import { benchConfig, skipWithoutPostgres } from '@agents/bench-config'
import { posts, readFloor } from '@agents/dating-venue/bench'
import { startTestVenue } from '@agents/dating-venue/testing'
import { createTestDatabase } from '@agents/service-kit/db'
import pg from 'pg'

const STREAMS = benchConfig.venue.floor.streams
const WINDOW_MS = benchConfig.venue.floor.windowMs
const serverUrl = benchConfig.venue.floor.databaseUrl
if (!serverUrl) {
  skipWithoutPostgres('the floor benchmark')
  process.exit(0)
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const database = await createTestDatabase(serverUrl)
const venue = await startTestVenue({
  databaseUrl: database.url,
  env: {
    VENUE_FLOOR_MAX_STREAMS: String(STREAMS + 10),
    VENUE_FLOOR_MAX_STREAMS_PER_ADDRESS: String(STREAMS + 10),
  },
})
const stats = new pg.Client({ connectionString: database.url })
await stats.connect()
const dbName = new URL(database.url).pathname.slice(1)

const committed = async () => {
  await stats.query('SELECT pg_stat_clear_snapshot()')
  const { rows } = await stats.query(
    'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1',
    [dbName],
  )
  return Number(rows[0].n)
}

const { db } = venue.deps.database
const select = db.select.bind(db)
let selects = 0
db.select = ((...args: Parameters<typeof select>) => {
  selects++
  return select(...args)
}) as typeof db.select

// PostgreSQL reports an idle backend's counters up to 10 s late
// (PGSTAT_IDLE_INTERVAL): settle that long before a window and after it.
const REPORT_LAG_MS = benchConfig.venue.floor.reportLagMs

/**
 * Transactions and SELECTs per second and CPU share over one window; `stop`
 * ends the load at the window's end, so the wait for late counters adds none.
 */
const measure = async (stop: () => Promise<void> | void = () => {}) => {
  await sleep(REPORT_LAG_MS)
  const [xact0, select0, cpu0, t0] = [await committed(), selects, process.cpuUsage(), Date.now()]
  await sleep(WINDOW_MS)
  const seconds = (Date.now() - t0) / 1000
  const selectsDone = selects - select0
  const cpu = process.cpuUsage(cpu0)
  await stop()
  await sleep(REPORT_LAG_MS)
  const xacts = (await committed()) - xact0
  return {
    xactPerSecond: xacts / seconds,
    selectsPerSecond: selectsDone / seconds,
    cpuPercent: ((cpu.user + cpu.system) / 1000 / (seconds * 1000)) * 100,
  }
}

// The venue with no stream open: its own background work (the payment reconciler).
const idle = await measure()

// Before: every stream read the floor every second on its own.
let polling = true
const loops = Array.from({ length: STREAMS }, async () => {
  let cursor = { afterTurn: 0, afterPost: 0 }
  await sleep(Math.random() * 1000)
  while (polling) {
    const items = await readFloor(venue.deps, cursor)
    for (const item of items)
      if (item.kind === 'turn')
        cursor = { ...cursor, afterTurn: Math.max(cursor.afterTurn, item.id) }
      else cursor = { ...cursor, afterPost: Math.max(cursor.afterPost, item.id) }
    await sleep(1000)
  }
})
const before = await measure(async () => {
  polling = false
  await Promise.all(loops)
})

// After: N event streams through HTTP, one poller.
type Stream = { text: string; ended: Promise<void>; wake?: () => void }
const open = () =>
  new Promise<Stream>((resolve, reject) => {
    const request = http.get(`${venue.url}/api/floor`, {
      agent: false,
      headers: { accept: 'text/event-stream' },
    })
    request.on('error', reject)
    request.on('response', (response) => {
      if (response.statusCode !== 200) reject(new Error(`status ${response.statusCode}`))
      const stream: Stream = {
        text: '',
        ended: new Promise((done) => response.on('close', () => done())),
      }
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        stream.text += chunk
        stream.wake?.()
      })
      resolve(stream)
    })
  })
const streams: Stream[] = []
for (let i = 0; i < STREAMS; i += 100)
  streams.push(...(await Promise.all(Array.from({ length: Math.min(100, STREAMS - i) }, open))))
// The poller goes on while late counters arrive: at most 2 transactions a second more.
const after = await measure()

const reach = (stream: Stream, marker: string, started: number) =>
  new Promise<number>((resolve) => {
    const check = () => {
      if (stream.text.includes(marker)) resolve(Date.now() - started)
    }
    stream.wake = check
    check()
  })
const marker = `floor-bench-${Date.now()}`
const posted = Date.now()
await db
  .insert(posts)
  .values({ board: 'seeking', handle: 'bench', body: marker, status: 'published' })
const latencies = (await Promise.all(streams.map((s) => reach(s, marker, posted)))).sort(
  (a, b) => a - b,
)

const closing = Date.now()
const closed = venue.close()
await Promise.all(streams.map((s) => s.ended))
const endedMs = Date.now() - closing
await closed
const closeMs = Date.now() - closing
const finals = streams.filter((s) => s.text.includes('"reason":"shutting_down"')).length
await stats.end()
await database.drop()

const round = (n: number) => Math.round(n * 10) / 10
console.log(`streams: ${STREAMS}, window ${WINDOW_MS} ms, poll every 1000 ms`)
console.table({
  'no stream open': {
    'transactions/s': round(idle.xactPerSecond),
    'SELECTs/s': round(idle.selectsPerSecond),
    'venue CPU %': round(idle.cpuPercent),
  },
  'per-stream polling (before)': {
    'transactions/s': round(before.xactPerSecond),
    'SELECTs/s': round(before.selectsPerSecond),
    'venue CPU %': round(before.cpuPercent),
  },
  'shared poller (after)': {
    'transactions/s': round(after.xactPerSecond),
    'SELECTs/s': round(after.selectsPerSecond),
    'venue CPU %': round(after.cpuPercent),
  },
})
console.log(
  `a post reached all ${STREAMS} streams in ${latencies.at(-1)} ms (median ${latencies[Math.floor(latencies.length / 2)]} ms)`,
)
console.log(
  `close with ${STREAMS} streams open: all ended in ${endedMs} ms, server closed in ${closeMs} ms; ${finals} got the final event`,
)
// The shared fake embeddings server would keep the process alive.
process.exit(finals !== STREAMS || after.selectsPerSecond > 2.5 ? 1 : 0)

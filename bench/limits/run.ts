// What one counted request costs the limiter, by store: process memory (one
// replica, PGlite) and the PostgreSQL table every replica shares, UNLOGGED as
// the kit creates it and, for comparison, a logged copy (what the library
// creates by default). Two traffic shapes: 50 clients coming back in turn
// (the kit's leases serve most takes from memory) and every take a new client
// (one upsert each). The policy is a realistic 1,200 a minute. Baseline:
// `SELECT 1` on the same pool, the floor of any store that lives in PostgreSQL.
//
// DATABASE_URL or TEST_DATABASE_URL: the PostgreSQL server (a fresh database
// is made and dropped). BENCH_TAKES: timed takes per store (default 3000).
import { benchConfig } from '@agents/bench-config'
import { createLimits, type Limits } from '@agents/service-kit'
import { createTestDatabase } from '@agents/service-kit/db'
import pg from 'pg'

const takes = benchConfig.limits.takes
const serverUrl = benchConfig.limits.serverUrl
const policy = { read: { points: 1200, windowSeconds: 60 } }

const median = (samples: number[]) => samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)]!
const p90 = (samples: number[]) => samples.sort((a, b) => a - b)[Math.floor(samples.length * 0.9)]!

let run = 0
/** Microseconds per call of `work`, over `takes` calls after a warm-up: 50 clients in turn, or a new one each time. */
const time = async (work: (key: string) => Promise<unknown>, clients: 'returning' | 'new') => {
  run++
  const keyOf = (index: number) =>
    clients === 'returning' ? `run-${run}-client-${index % 50}` : `run-${run}-client-${index}`
  for (let index = 0; index < 300; index++) await work(keyOf(index))
  const samples: number[] = []
  for (let index = 300; index < takes + 300; index++) {
    const started = performance.now()
    await work(keyOf(index))
    samples.push((performance.now() - started) * 1000)
  }
  return { median: median(samples), p90: p90(samples) }
}

const rows: Array<{ store: string; median: number; p90: number }> = []
const memory = await createLimits({ service: 'bench', store: { kind: 'memory' }, policies: policy })
rows.push({ store: 'memory', ...(await time((key) => memory.take('read', key), 'returning')) })

if (serverUrl) {
  const database = await createTestDatabase(serverUrl)
  const pool = new pg.Pool({ connectionString: database.url, max: 4 })
  try {
    rows.push({
      store: 'SELECT 1 (baseline)',
      ...(await time(() => pool.query('SELECT 1'), 'new')),
    })
    const unlogged: Limits<'read'> = await createLimits({
      service: 'bench',
      store: { kind: 'postgres', pool },
      policies: policy,
    })
    const take = (key: string) => unlogged.take('read', key)
    rows.push({ store: 'PostgreSQL, 50 returning', ...(await time(take, 'returning')) })
    rows.push({ store: 'PostgreSQL, all new', ...(await time(take, 'new')) })
    // The same table made logged: every upsert then waits for its WAL flush.
    await pool.query('ALTER TABLE rate_limits SET LOGGED')
    rows.push({ store: 'PostgreSQL logged, new', ...(await time(take, 'new')) })
  } finally {
    await pool.end()
    await database.drop()
  }
} else {
  console.log('no DATABASE_URL / TEST_DATABASE_URL: PostgreSQL stores not measured')
}

const baseline = rows.find((row) => row.store.startsWith('SELECT 1'))
console.log(`limiter: one take, ${takes} timed per store (microseconds)`)
for (const row of rows)
  console.log(
    `${row.store.padEnd(26)} median ${row.median.toFixed(1).padStart(8)}  p90 ${row.p90.toFixed(1).padStart(8)}${
      baseline ? `  ratio to SELECT 1: ${(row.median / baseline.median).toFixed(2)}x` : ''
    }`,
  )

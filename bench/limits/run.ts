// What one counted request costs the limiter, by store: process memory (one
// replica, PGlite) and the PostgreSQL table every replica shares, UNLOGGED as
// the kit creates it and, for comparison, a logged copy (what the library
// creates by default). Baseline: `SELECT 1` on the same pool, the floor of
// any store that lives in PostgreSQL.
//
// DATABASE_URL or TEST_DATABASE_URL: the PostgreSQL server (a fresh database
// is made and dropped). BENCH_TAKES: timed takes per store (default 3000).
import { createLimits, type Limits } from '@agents/service-kit'
import { createTestDatabase } from '@agents/service-kit/db'
import pg from 'pg'

const takes = Number(process.env.BENCH_TAKES ?? 3000)
const serverUrl = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL
const policy = { read: { points: 1e9, windowSeconds: 60 } }

const median = (samples: number[]) => samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)]!
const p90 = (samples: number[]) => samples.sort((a, b) => a - b)[Math.floor(samples.length * 0.9)]!

/** Microseconds per call of `work`, over `takes` calls after a warm-up, 50 keys in turn (50 clients). */
const time = async (work: (key: string) => Promise<unknown>) => {
  for (let index = 0; index < 300; index++) await work(`client-${index % 50}`)
  const samples: number[] = []
  for (let index = 0; index < takes; index++) {
    const started = performance.now()
    await work(`client-${index % 50}`)
    samples.push((performance.now() - started) * 1000)
  }
  return { median: median(samples), p90: p90(samples) }
}

const rows: Array<{ store: string; median: number; p90: number }> = []
const memory = await createLimits({ service: 'bench', store: { kind: 'memory' }, policies: policy })
rows.push({ store: 'memory', ...(await time((key) => memory.take('read', key))) })

if (serverUrl) {
  const database = await createTestDatabase(serverUrl)
  const pool = new pg.Pool({ connectionString: database.url, max: 4 })
  try {
    rows.push({ store: 'SELECT 1 (baseline)', ...(await time(() => pool.query('SELECT 1'))) })
    const unlogged: Limits<'read'> = await createLimits({
      service: 'bench',
      store: { kind: 'postgres', pool },
      policies: policy,
    })
    rows.push({
      store: 'PostgreSQL, unlogged',
      ...(await time((key) => unlogged.take('read', key))),
    })
    // The same table made logged: every take then waits for its WAL flush.
    await pool.query('ALTER TABLE rate_limits SET LOGGED')
    rows.push({ store: 'PostgreSQL, logged', ...(await time((key) => unlogged.take('read', key))) })
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
    `${row.store.padEnd(22)} median ${row.median.toFixed(1).padStart(8)}  p90 ${row.p90.toFixed(1).padStart(8)}${
      baseline ? `  ratio to SELECT 1: ${(row.median / baseline.median).toFixed(2)}x` : ''
    }`,
  )

// The operator console's snapshot on a venue at scale: `GET /admin.json`
// (over HTTP, through the operator guard, every key of the spec) on a venue
// holding 100,000 personas, 50,000 couples and 1,000,000 turns, beside a
// plain `SELECT count(*) FROM turns` on the same database in the same run
// (rounds alternate, so both see the same machine). Target: the snapshot's
// median at most 3x the count's.
//
//   npx tsx bench/dating-venue/admin-bench.ts
//
// BENCH_PERSONAS (100000), BENCH_TURNS (1000000), BENCH_ROUNDS (30),
// BENCH_DATABASE_URL (else TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test).

import { benchConfig, skipWithoutPostgres } from '@agents/bench-config'
import { startTestVenue, TEST_ADMIN_TOKEN } from '@agents/dating-venue/testing'
import { createTestDatabase } from '@agents/service-kit/db'
import pg from 'pg'
import { percentile } from '../payments/direct-settlement.ts'

const PERSONAS = benchConfig.venue.admin.personas
const TURNS = benchConfig.venue.admin.turns
const ROUNDS = benchConfig.venue.admin.rounds
const serverUrl = benchConfig.venue.admin.databaseUrl
if (!serverUrl) {
  skipWithoutPostgres('the operator console benchmark')
  process.exit(0)
}

const database = await createTestDatabase(serverUrl)
const venue = await startTestVenue({ databaseUrl: database.url })
const client = new pg.Client({ connectionString: database.url })
await client.connect()

const seeding = performance.now()
// Set-based seeding: the venue's own tables, filled as a busy venue would hold them.
await client.query(
  `
  INSERT INTO personas (handle, model, heart, status, admitted_at, created_at)
  SELECT 'bench-' || i, 'bench', '{"about":"a bench persona"}'::jsonb,
         CASE WHEN i % 10 = 0 THEN 'pending' WHEN i % 50 = 1 THEN 'held' ELSE 'admitted' END,
         now() - (i % 14) * interval '1 day', now() - (i % 14) * interval '1 day'
  FROM generate_series(1, $1::int) AS i`,
  [PERSONAS],
)
const [{ first }] = (await client.query('SELECT min(id)::int AS first FROM personas')).rows
const couples = Math.floor(PERSONAS / 2)
await client.query(
  `
  INSERT INTO couples (cycle_id, persona_a, persona_b, state, created_at)
  SELECT 'bench', $2::int + 2 * (i - 1), $2::int + 2 * (i - 1) + 1,
         (ARRAY['courting','committed','brokered','withdrawn','held'])[1 + i % 5],
         now() - (i % 14) * interval '1 day'
  FROM generate_series(1, $1::int) AS i`,
  [couples, first],
)
const [{ firstCouple }] = (await client.query('SELECT min(id)::int AS "firstCouple" FROM couples'))
  .rows
await client.query(
  `
  INSERT INTO turns (couple_id, persona_id, author, body, status)
  SELECT $3::int + i % $2::int, NULL, 'bench', 'a turn of a courtship',
         CASE WHEN i % 100 = 0 THEN 'held' WHEN i % 150 = 0 THEN 'blocked' ELSE 'published' END
  FROM generate_series(1, $1::int) AS i`,
  [TURNS, couples, firstCouple],
)
await client.query(`
  INSERT INTO events (kind, detail) SELECT 'bench', jsonb_build_object('i', i)
  FROM generate_series(1, 10000) AS i`)
await client.query('VACUUM ANALYZE')
const seededIn = performance.now() - seeding

const snapshot = async () => {
  const started = performance.now()
  const response = await fetch(`${venue.url}/admin.json`, {
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
  })
  const body = (await response.json()) as { admitted: number }
  if (response.status !== 200) throw new Error(`admin.json answered ${response.status}`)
  return { ms: performance.now() - started, body }
}
const countTurns = async () => {
  const started = performance.now()
  await client.query('SELECT count(*) FROM turns')
  return performance.now() - started
}

try {
  // Warm both (plans, caches, the pool) before measuring.
  for (let i = 0; i < 3; i++) {
    await snapshot()
    await countTurns()
  }
  const snapshots: number[] = []
  const counts: number[] = []
  let admitted = 0
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      counts.push(await countTurns())
      const { ms, body } = await snapshot()
      snapshots.push(ms)
      admitted = body.admitted
    } else {
      const { ms, body } = await snapshot()
      snapshots.push(ms)
      admitted = body.admitted
      counts.push(await countTurns())
    }
  }
  const median = (values: number[]) => percentile(values, 50)
  const [base, measured] = [median(counts), median(snapshots)]
  console.log(
    `# GET /admin.json at scale: ${PERSONAS.toLocaleString('en')} personas (${admitted.toLocaleString('en')} admitted), ${couples.toLocaleString('en')} couples, ${TURNS.toLocaleString('en')} turns, 10,000 events; PostgreSQL; ${ROUNDS} rounds (seeded in ${(seededIn / 1000).toFixed(1)} s)`,
  )
  console.log(
    `SELECT count(*) FROM turns (baseline): median ${base.toFixed(2)} ms, p90 ${percentile(counts, 90).toFixed(2)} ms`,
  )
  console.log(
    `GET /admin.json (HTTP, guard, every key): median ${measured.toFixed(2)} ms, p90 ${percentile(snapshots, 90).toFixed(2)} ms`,
  )
  console.log(`ratio: ${(measured / base).toFixed(2)}x (target <= 3x)`)
} finally {
  await client.end()
  await venue.close()
  await database.drop()
}
process.exit(0)

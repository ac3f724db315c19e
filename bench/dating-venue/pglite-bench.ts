// PGlite's own `query` against the same statements prepared once
// (`PreparingPglite`, which the services open PGlite with), in one process
// with nothing else running: a one-row select by key, as the credential and
// owner reads are, and an update feeding an insert, as the payment ledger's
// statements are. Each with drizzle's per-query parsers (timestamps as text),
// as every query through drizzle passes them. The baseline is PGlite's own
// `query`; the ratio is the prepared statement's time to it.

import { benchConfig } from '@agents/bench-config'
import { PreparingPglite } from '@agents/service-kit/db'
import { PGlite, types } from '@electric-sql/pglite'

const rounds = benchConfig.venue.pglite.rounds
const warmUp = benchConfig.venue.pglite.warmUp

const pglite = await PGlite.create()
await pglite.exec(`
  CREATE TABLE owners (
    id serial PRIMARY KEY, wallet text NOT NULL, tier text NOT NULL,
    credential_hash text NOT NULL, uses integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now()
  );
  INSERT INTO owners (wallet, tier, credential_hash)
    SELECT 'w' || g, 'free', md5(g::text) FROM generate_series(1, 2000) g;
`)
const prepared = new PreparingPglite(pglite)

const asText = (value: string) => value
const drizzleOptions = () => ({
  rowMode: 'array' as const,
  parsers: {
    [types.TIMESTAMP]: asText,
    [types.TIMESTAMPTZ]: asText,
    [types.INTERVAL]: asText,
    [types.DATE]: asText,
    1231: asText,
    1115: asText,
    1185: asText,
    1187: asText,
    1182: asText,
  },
})

const statements = {
  'select one row by key': {
    text: 'SELECT id, wallet, tier, credential_hash, created_at FROM owners WHERE id = $1',
    params: (i: number) => [1 + (i % 2000)],
  },
  'update feeding an insert (CTE)': {
    text: `WITH used AS (UPDATE owners SET uses = uses + 1 WHERE id = $1 RETURNING id)
           INSERT INTO owners (wallet, tier, credential_hash)
           SELECT $2, $3, $4 FROM used RETURNING id, created_at`,
    params: (i: number) => [1 + (i % 2000), `n${i}`, 'free', 'hash'],
  },
}

type Query = (text: string, params: unknown[], options: object) => Promise<unknown>
const timePer = async (query: Query, text: string, params: (i: number) => unknown[]) => {
  for (let i = 0; i < warmUp; i++) await query(text, params(i), drizzleOptions())
  const started = performance.now()
  for (let i = 0; i < rounds; i++) await query(text, params(i), drizzleOptions())
  return ((performance.now() - started) / rounds) * 1000
}

console.log(`# PGlite: its own query against the statement prepared once (${rounds} calls each)\n`)
for (const [name, { text, params }] of Object.entries(statements)) {
  // Interleaved twice, so neither side always runs on a warmer process.
  const own: number[] = []
  const once: number[] = []
  for (let pass = 0; pass < 2; pass++) {
    own.push(await timePer((t, p, o) => pglite.query(t, p, o), text, params))
    once.push(await timePer((t, p, o) => prepared.query(t, p, o), text, params))
  }
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length
  console.log(
    `${name}: PGlite.query ${mean(own).toFixed(0)} µs (baseline), prepared once ${mean(once).toFixed(0)} µs; ratio ${(mean(once) / mean(own)).toFixed(2)}x`,
  )
}
await pglite.close()

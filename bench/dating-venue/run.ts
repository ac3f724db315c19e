// `npm run bench:dating-venue`: the dating-venue benchmarks, one after the
// other, each in its own process (the embedding model and usearch must not
// share one): the whole match beat on PostgreSQL, the pairing alone with
// approximate-vs-exact agreement, the embedding worker pool, the live floor's
// event streams, PGlite's statements prepared or not, a paid compatibility
// report end to end, chat answers per second, and the operator console's
// snapshot at scale, and what a request limit costs a route.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { TS_ARGS } from '@agents/bench-config'

const here = fileURLToPath(new URL('.', import.meta.url))
let failed = false
for (const script of [
  'beat-bench.ts',
  'pairing-bench.ts',
  'embed.ts',
  'floor-bench.ts',
  'pglite-bench.ts',
  'report-bench.ts',
  'chat-bench.ts',
  'admin-bench.ts',
  'limits-bench.ts',
]) {
  process.stdout.write(`\n## ${script}\n`)
  const started = performance.now()
  const run = spawnSync(process.execPath, [...TS_ARGS, `${here}${script}`], {
    stdio: 'inherit',
  })
  if (run.status !== 0) failed = true
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  process.stdout.write(`(${script}: ${run.status === 0 ? 'ok' : 'FAILED'} in ${seconds} s)\n`)
}
process.exit(failed ? 1 : 0)

// `npm run bench:smoke`: every benchmark once in the smoke profile (a round or
// a second of each figure, tiny sizes), one after the other, each through its
// own npm script so that what runs is what `npm run bench:<name>` runs. It
// proves the benches still run; its figures mean nothing. Exits non-zero if
// any bench fails. Benches that need PostgreSQL use TEST_DATABASE_URL (or
// BENCH_DATABASE_URL, DATABASE_URL) when set and print a note and skip when not.
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))
/** `[workspace, npm script]`, cheapest first. */
const BENCHES: [string, string][] = [
  ['bench/limits', 'bench'],
  ['bench/launch-router', 'bench'],
  ['bench/payments', 'bench'],
  ['bench/swap-rail', 'bench'],
  ['bench/swap-rail', 'bench:offers'],
  ['bench/swap-rail', 'bench:limits'],
  ['bench/dating-venue', 'bench'],
  ['bench/abuse', 'bench'],
]
const only = process.argv.slice(2).filter((name) => !name.startsWith('-'))

const results: { name: string; seconds: number; ok: boolean }[] = []
const started = performance.now()
for (const [workspace, script] of BENCHES) {
  const name = `${workspace} ${script}`
  if (only.length > 0 && !only.some((part) => name.includes(part))) continue
  process.stdout.write(`\n# smoke: npm run ${script} -w ${workspace}\n`)
  const begun = performance.now()
  const run = spawnSync('npm', ['run', script, '-w', workspace, '--silent'], {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      BENCH_SMOKE: '1',
      // The benches load the same services again and again (a dozen venues): Node keeps what it
      // compiled, types stripped, and the next process starts from it (Node 22.1+; 20 ignores it).
      NODE_COMPILE_CACHE:
        process.env.NODE_COMPILE_CACHE ?? join(tmpdir(), 'agent-services-compile-cache'),
    },
  })
  results.push({ name, seconds: (performance.now() - begun) / 1000, ok: run.status === 0 })
}
process.stdout.write('\n# smoke summary\n')
for (const { name, seconds, ok } of results)
  process.stdout.write(`${ok ? 'ok    ' : 'FAILED'} ${seconds.toFixed(1).padStart(6)} s  ${name}\n`)
process.stdout.write(`total ${((performance.now() - started) / 1000).toFixed(1)} s\n`)
process.exit(results.every((result) => result.ok) ? 0 : 1)

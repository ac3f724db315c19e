/**
 * A test file's tier is in its name (vitest.config.ts): `npm test` runs every
 * other `*.test.ts` and must need no chain and no browser, so that it stays
 * fast and runs anywhere. This fails, naming the file and what it starts, when
 * a file outside the `chain`, `faults` and `browser` tiers starts a devnet,
 * an anvil or a browser (`npm run lint`).
 *
 * @example npx tsx scripts/check-test-tiers.ts
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const root = resolve(dirname(new URL(import.meta.url).pathname), '..')

// What a test calls to start something only a slower tier may start.
const NEEDS_TIER =
  /\b(startDevnet|sharedDevnet|startFaultDevnet|startBaseChain|startTempoChain|spawnAnvil|launchTestBrowser|startRehearsal|startProductionService)\s*\(/g
const TIERED = /\.(chain|faults|browser|rehearsal)\.test\.ts$/

const testFiles = (folder: string): string[] =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(path)
    return entry.name.endsWith('.test.ts') ? [path] : []
  })

const trees = ['packages', 'services'].flatMap((parent) =>
  readdirSync(join(root, parent)).map((name) => join(root, parent, name, 'src')),
)
const problems = trees
  .flatMap((tree) => {
    try {
      return testFiles(tree)
    } catch {
      return []
    }
  })
  .filter((file) => !TIERED.test(file))
  .flatMap((file) => {
    const calls = [...readFileSync(file, 'utf8').matchAll(NEEDS_TIER)].map((match) => match[1])
    return calls.length ? [`${relative(root, file)}: ${[...new Set(calls)].join(', ')}`] : []
  })

if (problems.length) {
  console.error(
    `test files that start a chain, a browser or a production install must be named *.chain.test.ts, *.faults.test.ts, *.browser.test.ts or *.rehearsal.test.ts:\n  ${problems.join('\n  ')}`,
  )
  process.exit(1)
}

import { configDefaults, defineConfig } from 'vitest/config'

/**
 * Test tiers, chosen by file name so that a file says what it needs:
 * - `unit`: the packages' tests (libraries, in-process, no chain) and the lint scripts'.
 * - `http`: the services' tests, through real HTTP, on PGlite (and
 *   PostgreSQL when TEST_DATABASE_URL is set), no chain.
 * - `chain` (`*.chain.test.ts`): real payments on the run's one devnet.
 * - `faults` (`*.faults.test.ts`): the exactly-once fault matrix and
 *   anything that needs its own devnet's fault switches, kills a process or
 *   restarts a service on damaged files.
 * - `browser` (`*.browser.test.ts`): pages driven by a real Chromium.
 * - `rehearsal` (`*.rehearsal.test.ts`): every service from a production
 *   install, with replicas behind a proxy (packages/rehearsal).
 * `npm test` runs unit and http; `npm run test:all` runs every tier.
 */
const TIERS = {
  chain: '**/*.chain.test.ts',
  faults: '**/*.faults.test.ts',
  browser: '**/*.browser.test.ts',
  rehearsal: '**/*.rehearsal.test.ts',
}
const notTiered = [...configDefaults.exclude, ...Object.values(TIERS)]
const sources = ['packages/*/src/**', 'services/*/src/**']

export default defineConfig({
  test: {
    // Three test files at a time on a 2-CPU machine (vitest's default is
    // CPUs - 1): most files wait on chains, facilitators, browsers and
    // leases, not the CPU. A fresh-clone run went from 1,144 s to 837 s of
    // tests with two (2026-11-25); `test:all` from 576 s to 521 s with three
    // instead of two (2026-11-28, 211 files, both databases, all green).
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'ops/**/*.test.ts', 'scripts/*.test.ts'],
          exclude: notTiered,
          // One module graph per worker instead of one per file: no test
          // mocks modules or globals, and importing a service (4-7 s of its
          // dependencies) once per worker was most of the tier's time.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'http',
          include: ['services/*/src/**/*.test.ts'],
          exclude: notTiered,
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'chain',
          include: sources.map((source) => `${source}/${TIERS.chain}`),
          globalSetup: ['packages/devnet/src/testing/global-devnet.ts'],
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'faults',
          include: sources.map((source) => `${source}/${TIERS.faults}`),
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: sources.map((source) => `${source}/${TIERS.browser}`),
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'rehearsal',
          include: sources.map((source) => `${source}/${TIERS.rehearsal}`),
        },
      },
    ],
  },
})

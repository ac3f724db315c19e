import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'services/*/src/**/*.test.ts'],
    // Two test files at a time even on a 2-CPU machine (vitest's default is
    // CPUs - 1): most files wait on chains, facilitators and leases, not the
    // CPU. A fresh-clone run went from 1,144 s to 837 s of tests (2026-11-25).
    maxWorkers: 2,
    // Test files share each worker's modules instead of importing the whole
    // service again per file (every file closes what it starts). On a slow
    // day nine venue files took 101 s instead of 159 s, their imports 33 s
    // instead of 96 s (2026-11-26); the whole suite had reached 1,199 s.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})

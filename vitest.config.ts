import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'services/*/src/**/*.test.ts'],
    // Two test files at a time even on a 2-CPU machine (vitest's default is
    // CPUs - 1): most files wait on chains, facilitators and leases, not the
    // CPU. A fresh-clone run went from 1,144 s to 837 s of tests (2026-11-25).
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})

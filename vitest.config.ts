import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'services/*/src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})

import type { TestProject } from 'vitest/node'
import { startSharedDevnet } from './start-shared-devnet.ts'

// Type the key this setup provides (`inject('devnet')`).
import './devnet-descriptor.ts'

/**
 * Vitest global setup for the chain tier: ONE devnet (Base with USDC, the facilitator, Tempo)
 * for the whole run, provided to test files as `inject('devnet')`; `sharedDevnet()` from
 * `@agents/devnet/testing` connects to it with fresh, funded accounts per call. It runs in the
 * runner's own process: a process of its own measured 5.4 s to start against 0.4-0.9 s here
 * (tsx and the imports again), with no test faster for it.
 *
 * @example
 * // vitest project config
 * test: { include: ['**\/*.chain.test.ts'], globalSetup: ['packages/devnet/src/testing/global-devnet.ts'] }
 */
export default async function setup(project: TestProject) {
  const { descriptor, stop } = await startSharedDevnet()
  project.provide('devnet', descriptor)
  return stop
}

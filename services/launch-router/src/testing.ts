import { postJson, type RunningServer } from '@agents/service-kit'
import { afterAll, beforeAll } from 'vitest'
import { readConfig } from './config.ts'
import { startLaunchRouter } from './start.ts'

/**
 * Starts the real router on an ephemeral loopback port, quiet, with two miner
 * threads, and limits no test meets unless it sets its own (every test's
 * requests come from one address).
 */
export const startTestRouter = (env: Record<string, string> = {}): Promise<RunningServer> =>
  startLaunchRouter(
    readConfig({
      PORT: '0',
      LOG_LEVEL: 'silent',
      MINER_THREADS: '2',
      RATE_LIMIT_READ: '1000000/60',
      RATE_LIMIT_MINING: '100000000/600',
      ...env,
    }),
    {
      processMetrics: false,
    },
  )

/** POSTs to an operation. */
export const callOperation = (server: RunningServer, operation: string, body: unknown) =>
  postJson(`${server.url}/api/v1/${operation}`, body)

export const CREATOR = '0x00000000000000000000000000000000000000A1'
// A real EIP-55 address (vitalik.eth) with its mixed-case checksum.
export const CHECKSUMMED = '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045'

/** The six operations, in the spec's order. */
export const OPERATIONS = [
  'list_pads',
  'list_networks',
  'get_capabilities',
  'draft_intent',
  'simulate_launch',
  'get_sign_payload',
] as const

/** One router for a test file: started before its tests, closed after. Read `.server` inside tests. */
export const useTestRouter = (env: Record<string, string> = {}) => {
  const handle = {} as { server: RunningServer }
  beforeAll(async () => {
    handle.server = await startTestRouter(env)
  })
  afterAll(() => handle.server.close())
  return handle
}

export type { KnobType } from './matrix/knob-type.ts'
export { defaultPadsDirectory, readPadFiles } from './matrix/load-matrix.ts'

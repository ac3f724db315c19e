import { postJson, type RunningServer } from '@agents/service-kit'
import { readConfig } from './config.ts'
import { startLaunchRouter } from './start.ts'

/** Starts the real router on an ephemeral loopback port, quiet, with two miner threads. */
export const startTestRouter = (env: Record<string, string> = {}): Promise<RunningServer> =>
  startLaunchRouter(readConfig({ PORT: '0', LOG_LEVEL: 'silent', MINER_THREADS: '2', ...env }))

/** POSTs to an operation. */
export const callOperation = (server: RunningServer, operation: string, body: unknown) =>
  postJson(`${server.url}/api/v1/${operation}`, body)

export const CREATOR = '0x00000000000000000000000000000000000000A1'
// A real EIP-55 address (vitalik.eth) with its mixed-case checksum.
export const CHECKSUMMED = '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045'

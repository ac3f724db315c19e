import type { TestProject } from 'vitest/node'
import { startDevnet } from '../start-devnet.ts'
import { createDevnetFunder } from './create-devnet-funder.ts'
import type { DevnetDescriptor } from './devnet-descriptor.ts'
import { serveDevnetFunder } from './serve-devnet-funder.ts'

/**
 * Vitest global setup for the chain tier: ONE devnet (Base with USDC, the facilitator, Tempo)
 * for the whole run, provided to test files as `inject('devnet')`; `sharedDevnet()` from
 * `@agents/devnet/testing` connects to it with fresh, funded accounts per call.
 *
 * @example
 * // vitest project config
 * test: { include: ['**\/*.chain.test.ts'], globalSetup: ['packages/devnet/src/testing/global-devnet.ts'] }
 */
export default async function setup(project: TestProject) {
  const devnet = await startDevnet()
  try {
    const tempo = devnet.tempo!
    const funder = await createDevnetFunder({
      base: { rpcUrl: devnet.base.rpcUrl, usdc: devnet.base.usdc },
      tempo: { rpcUrl: tempo.rpcUrl, currency: tempo.currency },
    })
    const server = await serveDevnetFunder(funder)
    const descriptor: DevnetDescriptor = {
      base: {
        rpcUrl: devnet.base.rpcUrl,
        chainId: devnet.base.chainId,
        usdc: devnet.base.usdc,
        pid: devnet.pids.base,
      },
      tempo: {
        rpcUrl: tempo.rpcUrl,
        chainId: tempo.chainId,
        currency: tempo.currency,
        pid: devnet.pids.tempo!,
      },
      facilitator: { url: devnet.facilitator.url, address: devnet.facilitator.address },
      fundingUrl: `${server.url}/fund`,
    }
    project.provide('devnet', descriptor)
    return async function stopGlobalDevnet() {
      await server.close()
      await devnet.stop()
    }
  } catch (error) {
    await devnet.stop()
    throw error
  }
}

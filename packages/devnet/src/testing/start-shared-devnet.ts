import { startDevnet } from '../start-devnet.ts'
import { createDevnetFunder } from './create-devnet-funder.ts'
import type { DevnetDescriptor } from './devnet-descriptor.ts'
import { serveDevnetFunder } from './serve-devnet-funder.ts'

export type StartSharedDevnetReturnType = {
  descriptor: DevnetDescriptor
  stop: () => Promise<void>
}

/**
 * Starts the devnet that a whole test run shares (Base with USDC, the facilitator, Tempo) and
 * the funding server that gives each test file fresh, funded accounts on it.
 *
 * @example
 * const { descriptor, stop } = await startSharedDevnet()
 */
export const startSharedDevnet = async (): Promise<StartSharedDevnetReturnType> => {
  const devnet = await startDevnet()
  try {
    const tempo = devnet.tempo!
    const funder = await createDevnetFunder({
      base: { rpcUrl: devnet.base.rpcUrl, usdc: devnet.base.usdc },
      tempo: { rpcUrl: tempo.rpcUrl, currency: tempo.currency },
    })
    const server = await serveDevnetFunder(funder)
    return {
      descriptor: {
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
      },
      stop: async () => {
        await server.close()
        await devnet.stop()
      },
    }
  } catch (error) {
    await devnet.stop()
    throw error
  }
}

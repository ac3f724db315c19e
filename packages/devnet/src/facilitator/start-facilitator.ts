import type { Address } from 'viem'
import { serveLocal } from '../serve-local.ts'
import { createFacilitatorApp } from './create-facilitator-app.ts'
import {
  type CreateLocalFacilitatorParameters,
  createLocalFacilitator,
} from './create-local-facilitator.ts'
import type { FacilitatorBehavior } from './facilitator-behavior.ts'

export type StartFacilitatorParameters = CreateLocalFacilitatorParameters

export type StartFacilitatorReturnType = {
  url: string
  address: Address
  setBehavior: (behavior: FacilitatorBehavior) => void
  /** How many `/settle` calls have transferred on-chain since start, whatever they answered. */
  settlements: () => number
  stop: () => Promise<void>
}

/**
 * Serves a local x402 facilitator over HTTP on 127.0.0.1, settling on the devnet chain.
 *
 * @example
 * const facilitator = await startFacilitator({ rpcUrl, chain, privateKey })
 * facilitator.setBehavior('down') // every route answers 503
 * facilitator.setBehavior({ settle: 'reset' }) // settles, then resets the connection
 * facilitator.settlements() // 1
 */
export const startFacilitator = async (
  parameters: StartFacilitatorParameters,
): Promise<StartFacilitatorReturnType> => {
  const { facilitator, address } = createLocalFacilitator(parameters)
  let behavior: FacilitatorBehavior = 'normal'
  let settlements = 0
  const app = createFacilitatorApp(facilitator, {
    getBehavior: () => behavior,
    onSettlement: () => {
      settlements += 1
    },
  })
  const server = await serveLocal(app.fetch)
  return {
    url: server.url,
    address,
    setBehavior: (next) => {
      behavior = next
    },
    settlements: () => settlements,
    stop: server.close,
  }
}

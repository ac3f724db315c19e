import type { Address, Chain, Hex } from 'viem'
import { serveLocal } from '../serve-local.ts'
import { createFacilitatorApp, type FacilitatorBehavior } from './create-facilitator-app.ts'
import { createLocalFacilitator } from './create-local-facilitator.ts'

export type StartFacilitatorParameters = {
  rpcUrl: string
  chain: Chain
  privateKey: Hex
}

export type StartFacilitatorReturnType = {
  url: string
  address: Address
  setBehavior: (behavior: FacilitatorBehavior) => void
  stop: () => Promise<void>
}

/**
 * Serves a local x402 facilitator over HTTP on 127.0.0.1, settling on the devnet chain.
 *
 * @example
 * const facilitator = await startFacilitator({ rpcUrl, chain, privateKey })
 * facilitator.setBehavior('down') // every route answers 503
 */
export const startFacilitator = async (
  parameters: StartFacilitatorParameters,
): Promise<StartFacilitatorReturnType> => {
  const { facilitator, address } = createLocalFacilitator(parameters)
  let behavior: FacilitatorBehavior = 'normal'
  const app = createFacilitatorApp(facilitator, { getBehavior: () => behavior })
  const server = await serveLocal(app.fetch)
  return {
    url: server.url,
    address,
    setBehavior: (next) => {
      behavior = next
    },
    stop: server.close,
  }
}

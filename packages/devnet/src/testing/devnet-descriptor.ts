import type { Address } from 'viem'
import type { BASE_CHAIN_ID } from '../chains/start-base-chain.ts'

/**
 * The run's one devnet as the chain tier's global setup provides it to test files
 * (`inject('devnet')`): plain JSON, since it crosses from vitest's main process to its workers.
 */
export type DevnetDescriptor = {
  base: { rpcUrl: string; chainId: typeof BASE_CHAIN_ID; usdc: Address; pid: number }
  tempo: { rpcUrl: string; chainId: number; currency: Address; pid: number }
  facilitator: { url: string; address: Address }
  /** `POST` `{ "base": [addresses], "tempo": [addresses] }` funds fresh accounts, one request at a time. */
  fundingUrl: string
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set by `packages/devnet/src/testing/global-devnet.ts` in the chain tier only. */
    devnet?: DevnetDescriptor
  }
}

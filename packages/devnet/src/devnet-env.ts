import { randomBytes } from 'node:crypto'
import type { Devnet } from './start-devnet.ts'

/**
 * The environment a paid service reads to take payments on this devnet
 * (`npm start` passes it on). `PAYMENTS_DEVNET=1` lets a service's
 * production guard refuse it.
 */
export const devnetEnv = (devnet: Devnet): Record<string, string> => ({
  PAYMENTS_DEVNET: '1',
  PAYMENTS_FACILITATOR_URL: devnet.facilitator.url,
  PAYMENTS_BASE_RPC_URL: devnet.base.rpcUrl,
  PAYMENTS_BASE_USDC: devnet.base.usdc,
  PAYMENTS_PAY_TO: devnet.accounts.payee,
  ...(devnet.tempo
    ? {
        PAYMENTS_TEMPO_RPC_URL: devnet.tempo.rpcUrl,
        PAYMENTS_TEMPO_CHAIN_ID: String(devnet.tempo.chainId),
        PAYMENTS_TEMPO_CURRENCY: devnet.tempo.currency,
        // A fresh secret per devnet: challenges from one run are not accepted by the next.
        PAYMENTS_MPP_SECRET: randomBytes(32).toString('hex'),
      }
    : {}),
})

import { PaymentsConfigError } from './errors.ts'
import type { X402Rail } from './types.ts'

const TEST_NETWORKS = new Set([
  'eip155:84532', // Base Sepolia
  'eip155:31337', // anvil default
  'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', // Solana devnet
  'solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z', // Solana testnet
])
const TEST_TEMPO_CHAINS = new Set([42431])

const isLocalOrPrivate = (hostname: string) =>
  /^(localhost|127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|169\.254\.|0\.0\.0\.0|\[?::1\]?$|\[?f[cd])/i.test(
    hostname,
  )

export type PaymentSettings = {
  production: boolean
  /** Set by the devnet: payments settle on a local chain. */
  devnet?: boolean
  x402?: { rails: readonly X402Rail[]; facilitatorUrl?: string; baseRpcUrl?: string }
  mpp?: { chainId: number; secretKey?: string }
}

/**
 * Refuses, at start-up, settings that would take fake money for real goods:
 * in production no devnet, no test networks, a facilitator over public
 * https, a Base RPC for reconciliation, and an MPP secret. Reports every problem at once.
 */
export const checkPaymentSettings = ({ production, devnet, x402, mpp }: PaymentSettings): void => {
  if (!production) return
  const problems: string[] = []
  if (devnet)
    problems.push('the devnet cannot take payments in production; configure real payment settings')
  if (x402) {
    for (const rail of x402.rails) {
      if (TEST_NETWORKS.has(rail.network))
        problems.push(`x402 network ${rail.network} is a test network`)
    }
    // Without the chain, a lost settle answer could never be resolved.
    if (x402.rails.some((rail) => rail.network === 'eip155:8453') && !x402.baseRpcUrl)
      problems.push('x402 on Base needs PAYMENTS_BASE_RPC_URL to reconcile lost settle answers')
    if (!x402.facilitatorUrl) problems.push('x402 needs a facilitator URL')
    else {
      try {
        const url = new URL(x402.facilitatorUrl)
        if (url.protocol !== 'https:') problems.push('the facilitator URL must be https')
        if (isLocalOrPrivate(url.hostname))
          problems.push('the facilitator URL points at a local or private address')
      } catch {
        problems.push('the facilitator URL is not a URL')
      }
    }
  }
  if (mpp) {
    if (TEST_TEMPO_CHAINS.has(mpp.chainId))
      problems.push(`Tempo chain ${mpp.chainId} is a test network`)
    if (!mpp.secretKey || mpp.secretKey.length < 32)
      problems.push('MPP needs a secret key of at least 32 characters')
  }
  if (problems.length > 0) throw new PaymentsConfigError(problems)
}

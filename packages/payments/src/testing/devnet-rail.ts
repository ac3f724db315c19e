import type { X402Rail } from '../types.ts'

/** The x402 rail of a devnet: its Base chain's USDC (EIP-712 "USD Coin" v2), paying `payTo`. */
export const devnetBaseRail = (
  devnet: { base: { usdc: string }; accounts: { payee: string } },
  payTo = devnet.accounts.payee,
): X402Rail & { network: 'eip155:8453' } => ({
  network: 'eip155:8453',
  asset: devnet.base.usdc,
  payTo,
  extra: { name: 'USD Coin', version: '2' },
})

import { describe, expect, test } from 'vitest'
import { checkPaymentSettings } from './check-settings.ts'
import { PaymentsConfigError } from './errors.ts'

const base = {
  network: 'eip155:8453' as const,
  asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  payTo: '0x00000000000000000000000000000000000000A1',
}
const problemsOf = (settings: Parameters<typeof checkPaymentSettings>[0]) => {
  try {
    checkPaymentSettings(settings)
    return []
  } catch (error) {
    expect(error).toBeInstanceOf(PaymentsConfigError)
    return (error as PaymentsConfigError).problems
  }
}

describe('checkPaymentSettings', () => {
  test('default: outside production anything goes (the devnet included)', () => {
    expect(
      problemsOf({
        production: false,
        devnet: true,
        x402: { rails: [base], facilitatorUrl: 'http://127.0.0.1:1' },
      }),
    ).toEqual([])
  })

  test('default: real settings pass in production', () => {
    expect(
      problemsOf({
        production: true,
        x402: {
          rails: [base],
          facilitatorUrl: 'https://facilitator.example.com',
          baseRpcUrl: 'https://base.rpc.example.com',
        },
        mpp: { chainId: 4217, secretKey: 'x'.repeat(32) },
      }),
    ).toEqual([])
  })

  test('errors: production refuses x402 on Base without a Base RPC to reconcile lost settle answers', () => {
    expect(
      problemsOf({
        production: true,
        x402: { rails: [base], facilitatorUrl: 'https://facilitator.example.com' },
      }),
    ).toEqual(['x402 on Base needs PAYMENTS_BASE_RPC_URL to reconcile lost settle answers'])
    const solana = {
      network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' as const,
      asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
      payTo: 'Hub1111111111111111111111111111111111111111',
    }
    expect(
      problemsOf({
        production: true,
        x402: { rails: [solana], facilitatorUrl: 'https://facilitator.example.com' },
      }),
    ).toEqual([])
  })

  test('errors: production refuses the devnet, test networks, local or plain facilitators and weak MPP secrets', () => {
    expect(
      problemsOf({
        production: true,
        devnet: true,
        x402: {
          rails: [base, { ...base, network: 'eip155:84532' }],
          facilitatorUrl: 'http://127.0.0.1:4020',
        },
        mpp: { chainId: 42431, secretKey: 'short' },
      }),
    ).toEqual([
      'the devnet cannot take payments in production; configure real payment settings',
      'x402 network eip155:84532 is a test network',
      'x402 on Base needs PAYMENTS_BASE_RPC_URL to reconcile lost settle answers',
      'the facilitator URL must be https',
      'the facilitator URL points at a local or private address',
      'Tempo chain 42431 is a test network',
      'MPP needs a secret key of at least 32 characters',
    ])
    const baseRpcUrl = 'https://base.rpc.example.com'
    expect(problemsOf({ production: true, x402: { rails: [base], baseRpcUrl } })).toEqual([
      'x402 needs a facilitator URL',
    ])
    expect(
      problemsOf({
        production: true,
        x402: { rails: [base], facilitatorUrl: 'https://10.0.0.5', baseRpcUrl },
      }),
    ).toEqual(['the facilitator URL points at a local or private address'])
  })
})

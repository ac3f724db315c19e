import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest'
import { DEVNET_PAYER_USDC, type Devnet } from '../start-devnet.ts'
import { sharedDevnet } from './shared-devnet.ts'

// In the chain tier (the global devnet provided) this checks the shared devnet; run on its
// own it checks the fallback, a private devnet.
const shared = inject('devnet') !== undefined
let first: Devnet
let second: Devnet
beforeAll(async () => {
  ;[first, second] = await Promise.all([sharedDevnet(), sharedDevnet({ tempo: false })])
}, 60_000)
afterAll(async () => {
  await Promise.all([first?.stop(), second?.stop()])
})

test('each call has payers of its own, funded on both chains, and empty payees', async () => {
  const { payer, payer2, payee, payee2, feeRecipient } = first.accounts
  for (const address of [payer.address, payer2.address]) {
    expect(await first.usdcBalance(address)).toBe(DEVNET_PAYER_USDC)
    expect(await first.base.publicClient.getBalance({ address })).toBeGreaterThanOrEqual(10n ** 21n)
    expect(await first.tempoBalance!(address)).toBeGreaterThanOrEqual(DEVNET_PAYER_USDC)
  }
  for (const address of [payee, payee2, feeRecipient]) {
    expect(await first.usdcBalance(address)).toBe(0n)
    expect(await first.tempoBalance!(address)).toBe(0n)
  }
  expect(second.tempo).toBeUndefined()
  expect(second.mppFetch).toBeUndefined()
  expect(await second.usdcBalance(second.accounts.payer.address)).toBe(DEVNET_PAYER_USDC)
})

describe.runIf(shared)('on the run’s shared devnet', () => {
  test('calls share the chains and the facilitator, never an account', () => {
    expect(second.base.rpcUrl).toBe(first.base.rpcUrl)
    expect(second.facilitator.url).toBe(first.facilitator.url)
    const addresses = [first, second].flatMap(({ accounts }) => [
      accounts.payer.address,
      accounts.payer2.address,
      accounts.payee,
      accounts.payee2,
      accounts.feeRecipient,
    ])
    expect(new Set(addresses).size).toBe(10)
  })

  test('fault switches and the settlement count refuse, naming where they work', () => {
    expect(() => first.facilitator.setBehavior('down')).toThrow(
      /fault switches need their own devnet: startDevnet\(\) in a \.faults\.test\.ts file/,
    )
    expect(() => first.facilitator.settlements()).toThrow(/fault switches need their own devnet/)
  })

  test('stop() leaves the shared chains running', async () => {
    await second.stop()
    expect(await second.base.publicClient.getChainId()).toBe(8453)
  })
})

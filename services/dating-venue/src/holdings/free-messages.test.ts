import { describe, expect, it } from 'vitest'
import { holdingCents, holdingTier, utcDay } from './free-messages.ts'

describe('free daily messages by holding', () => {
  it.each([
    [0n, 3, 50],
    [2_999n, 3, 50],
    [3_000n, 50, 100],
    [5_999n, 50, 100],
    [6_000n, 100, 200],
    [8_999n, 100, 200],
    [9_000n, 200, 400],
    [11_999n, 200, 400],
    [12_000n, 400, 500],
    [14_999n, 400, 500],
    [15_000n, 500, undefined],
    [18_000n, 500, undefined],
    [10_000_000n, 500, undefined],
    [-5n, 3, 50],
  ] as const)('a holding of %s cents gives %s a day (next tier %s)', (cents, messages, next) => {
    const tier = holdingTier(cents)
    expect(tier.messages).toBe(messages)
    expect(tier.next?.messages).toBe(next)
    if (tier.next) expect(tier.next.moreCents).toBe(tier.next.fromCents - (cents < 0n ? 0n : cents))
  })

  it('a holding is worth its balance times the price, rounded down to the cent', () => {
    // 1,234.5 tokens of 18 decimals at $0.025 = $30.8625 -> 3,086 cents.
    expect(holdingCents(1_234_500_000_000_000_000_000n, 18, 25_000n)).toBe(3_086n)
    expect(holdingCents(1n, 18, 1_000_000n)).toBe(0n)
    expect(holdingCents(30_000_000n, 6, 1_000_000n)).toBe(3_000n)
  })

  it('the day resets at 00:00 UTC', () => {
    expect(utcDay(new Date('2026-11-24T23:59:59.999Z'))).toBe('2026-11-24')
    expect(utcDay(new Date('2026-11-25T00:00:00.000Z'))).toBe('2026-11-25')
  })
})

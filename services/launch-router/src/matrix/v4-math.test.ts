import { describe, expect, test } from 'vitest'
import { dopplerFirstSlugs } from './doppler-first-slugs.ts'
import { MAX_TICK, maxLiquidityPerTick, sqrtPriceAtTick } from './v4-math.ts'

describe("v4-core's arithmetic, as the pool computes it", () => {
  test('getSqrtPriceAtTick: the values v4-core pins (TickMath.MIN/MAX_SQRT_PRICE, tick 0)', () => {
    expect(sqrtPriceAtTick(-MAX_TICK)).toBe(4295128739n)
    expect(sqrtPriceAtTick(MAX_TICK)).toBe(1461446703485210103287273052203988822378723970342n)
    expect(sqrtPriceAtTick(0)).toBe(2n ** 96n)
    expect(() => sqrtPriceAtTick(MAX_TICK + 1)).toThrow(/InvalidTick/)
  })

  test('tickSpacingToMaxLiquidityPerTick: the values of v4-core 1.0.2 test/Tick.t.sol', () => {
    expect(maxLiquidityPerTick(10)).toBe(1917559095893846719543856547154045n)
    expect(maxLiquidityPerTick(60)).toBe(11505354575363080317263139282924270n)
    expect(maxLiquidityPerTick(200)).toBe(38345995821606768476828330790147420n)
    expect(maxLiquidityPerTick(1)).toBe(191757530477355301479181766273477n)
    expect(maxLiquidityPerTick(32767)).toBe(6076470837873901133274546561281575204n)
  })
})

describe("the Doppler hook's first slugs", () => {
  const auction = {
    startTick: 126120,
    gamma: 3300,
    duration: 604800,
    epochLength: 43200,
    isToken0: false,
    numTokensToSell: 9n * 10n ** 26n,
    numPDSlugs: 5,
    tickSpacing: 30,
  }

  test('the defaults: an upper slug of one epoch and five price-discovery slugs down to start - gamma', () => {
    const slugs = dopplerFirstSlugs(auction)
    if (!Array.isArray(slugs)) throw new Error('out of range')
    expect(slugs.map((slug) => [slug.name, slug.tickLower, slug.tickUpper])).toEqual([
      // upperSlugRange = floor(floor(43200e18 / 604800) * 3300 / 1e18) = 235, aligned up to 126120 - 210.
      ['upper slug', 125910, 126120],
      ['price-discovery slug 1', 125310, 125910],
      ['price-discovery slug 2', 124710, 125310],
      ['price-discovery slug 3', 124110, 124710],
      ['price-discovery slug 4', 123510, 124110],
      ['price-discovery slug 5', 122910, 123510],
    ])
  })

  test('one epoch: the whole sale in the upper slug, no price-discovery slug', () => {
    const slugs = dopplerFirstSlugs({ ...auction, duration: 43200, gamma: 30 })
    expect(Array.isArray(slugs) && slugs.map((slug) => slug.name)).toEqual(['upper slug'])
  })

  test('a slug past the price limit is the tick getSqrtPriceAtTick refuses', () => {
    expect(dopplerFirstSlugs({ ...auction, startTick: -887220, gamma: 3300 })).toEqual({
      invalidTick: expect.any(Number),
    })
  })
})

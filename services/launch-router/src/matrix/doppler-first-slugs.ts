/**
 * The liquidity a Doppler dynamic auction's hook places when its pool is
 * initialized, computed exactly as the chain does, in integers: Uniswap
 * v4-core's `TickMath.getSqrtPriceAtTick`, `FullMath.mulDiv` (floor), v4-core's
 * test `LiquidityAmounts` (which Doppler imports) and the hook's own
 * arithmetic (whetstoneresearch/doppler@d223428 src/initializers/Doppler.sol:
 * the constructor's `upperSlugRange` at lines 323-327, `unlockCallback` at
 * 1250-1290, `_getTicksBasedOnState` 886-900, `_computeUpperSlugData`
 * 957-990, `_computePriceDiscoverySlugsData` 1004-1050, `_computeLiquidity`
 * 1080-1093, `_alignComputedTickWithTickSpacing` 838-858). The create
 * transaction runs before `startingTime`, so the hook is in its first epoch
 * and the result depends on the auction's parameters only, not on the block.
 */

import { MAX_TICK, sqrtPriceAtTick, UINT128_MAX } from './v4-math.ts'

const WAD = 10n ** 18n
const Q96 = 2n ** 96n
const INT128_LIMIT = 2n ** 127n

/** Doppler's `_alignComputedTickWithTickSpacing`: down for the token0 side, up for token1. */
const align = (isToken0: boolean, tick: number, spacing: number) =>
  (isToken0 ? Math.floor(tick / spacing) : Math.ceil(tick / spacing)) * spacing

/** `_computeLiquidity`: one token less, then LiquidityAmounts (uncapped; the caller compares). */
const liquidityFor = (forToken0: boolean, tickA: number, tickB: number, amount: bigint) => {
  const spent = amount === 0n ? 0n : amount - 1n
  let [a, b] = [sqrtPriceAtTick(tickA), sqrtPriceAtTick(tickB)]
  if (a > b) [a, b] = [b, a]
  return forToken0 ? (spent * ((a * b) / Q96)) / (b - a) : (spent * Q96) / (b - a)
}

export type DynamicAuction = {
  startTick: number
  gamma: number
  duration: number
  epochLength: number
  isToken0: boolean
  numTokensToSell: bigint
  numPDSlugs: number
  tickSpacing: number
}

/** A position the hook adds, in the pool's order (tickLower < tickUpper), its liquidity uncapped. */
export type Slug = { name: string; tickLower: number; tickUpper: number; liquidity: bigint }

/**
 * The upper slug and the price-discovery slugs the hook adds in its
 * `afterInitialize` (the lower slug is empty then: no proceeds yet), or
 * the tick `getSqrtPriceAtTick` would refuse (InvalidTick) if a slug leaves
 * the price range. Slugs with no liquidity are left out, as the hook skips them.
 */
export const dopplerFirstSlugs = (auction: DynamicAuction): Slug[] | { invalidTick: number } => {
  const { startTick, gamma, isToken0, numTokensToSell: sell, numPDSlugs, tickSpacing } = auction
  const duration = BigInt(auction.duration)
  const epochLength = BigInt(auction.epochLength)
  const direction = isToken0 ? 1 : -1
  const normalized = (elapsed: bigint) => (elapsed * WAD) / duration
  const epochEnd = (offset: number) => {
    const end = BigInt(1 + offset) * epochLength
    return end > duration ? duration : end
  }
  const upperSlugRange = Number((normalized(epochLength) * BigInt(gamma)) / WAD)
  const curveTop = align(isToken0, startTick, tickSpacing) + direction * gamma
  const out: Slug[] = []
  const slug = (name: string, from: number, to: number, amount: bigint) => {
    for (const tick of [from, to]) if (Math.abs(tick) > MAX_TICK) return tick
    const liquidity = liquidityFor(isToken0, from, to, amount)
    if (liquidity !== 0n)
      out.push({
        name,
        tickLower: Math.min(from, to),
        tickUpper: Math.max(from, to),
        liquidity,
      })
    return undefined
  }

  // Upper slug: from the pool's tick, one epoch's worth of the sale.
  const expected = (normalized(epochLength) * sell) / WAD
  const upperTokens = expected > sell ? sell : expected
  let upperEnd = startTick
  if (upperTokens > 0n) {
    const reach = Math.max(upperSlugRange, tickSpacing)
    upperEnd = align(isToken0, startTick + direction * reach, tickSpacing)
    const invalid = slug('upper slug', startTick, upperEnd, upperTokens)
    if (invalid !== undefined) return { invalidTick: invalid }
  }
  const remaining = sell - upperTokens

  // Price-discovery slugs: none in a one-epoch auction.
  if (epochEnd(1) === epochEnd(0)) return out
  let count = numPDSlugs
  for (let i = numPDSlugs; i > 0; i--) {
    if (epochEnd(i - 1) !== epochEnd(i)) break
    count--
  }
  let step = Math.trunc((curveTop - upperEnd) / count)
  if (isToken0) step = step < tickSpacing ? tickSpacing : step
  else step = step < -tickSpacing ? step : -tickSpacing
  let perSlug = ((normalized(epochEnd(1)) - normalized(epochEnd(0))) * sell) / WAD
  if (perSlug * BigInt(count) > remaining) perSlug = remaining / BigInt(count)
  let tick = upperEnd
  for (let i = 0; i < count; i++) {
    const from = tick
    tick = align(isToken0, from + step, tickSpacing)
    const invalid = slug(`price-discovery slug ${i + 1}`, from, tick, perSlug)
    if (invalid !== undefined) return { invalidTick: invalid }
  }
  return out
}

export type SlugRevert =
  | { error: 'liquidity overflow'; slug: Slug }
  | { error: 'Overflow'; slug: Slug }
  | { error: 'TickLiquidityOverflow'; tick: number; liquidity: bigint; slugs: Slug[] }

/**
 * The first revert adding the slugs meets, in the chain's order: every
 * slug's liquidity is computed before any is added, and LiquidityAmounts
 * refuses one over uint128 (`require(..., "liquidity overflow")`); then
 * `_update` adds them one by one, each cast with Solady's `toInt128`
 * (`Overflow()` from 2^127) and given to the pool, whose `modifyLiquidity`
 * adds it to both ends' `liquidityGross` and checks the lower end, then the
 * upper, against `maxLiquidityPerTick` (v4-core Pool.sol lines 159-172). A
 * tick shared by two slugs, one's end and the next one's start, carries both.
 */
export const firstSlugRevert = (slugs: Slug[], maxPerTick: bigint): SlugRevert | undefined => {
  const overflowing = slugs.find((slug) => slug.liquidity > UINT128_MAX)
  if (overflowing) return { error: 'liquidity overflow', slug: overflowing }
  const gross = new Map<number, bigint>()
  for (const slug of slugs) {
    if (slug.liquidity >= INT128_LIMIT) return { error: 'Overflow', slug }
    for (const tick of [slug.tickLower, slug.tickUpper])
      gross.set(tick, (gross.get(tick) ?? 0n) + slug.liquidity)
    for (const tick of [slug.tickLower, slug.tickUpper]) {
      const liquidity = gross.get(tick)!
      if (liquidity > maxPerTick)
        return {
          error: 'TickLiquidityOverflow',
          tick,
          liquidity,
          slugs: slugs.filter((other) => other.tickLower === tick || other.tickUpper === tick),
        }
    }
  }
  return undefined
}

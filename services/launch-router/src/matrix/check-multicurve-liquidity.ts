import type { KnobProblem } from './check-dynamic-auction.ts'
import type { Pad } from './pad.ts'
import { maxLiquidityPerTick } from './v4-math.ts'

type Curve = { tickLower: number; tickUpper: number; numPositions: number; shares: string }

const WAD = 10n ** 18n
const Q96 = 2 ** 96
const HALF_LN_BASE = Math.log(1.0001) / 2
// Float64 carries ~15 digits; liquidity within this fraction of the bound is refused too.
const MARGIN = 1e-9
/**
 * A router bound: each position is minted in the create transaction and takes at least one
 * fresh storage slot (22,100 gas: EIP-2929 cold access + EIP-2200 set), so 2,000 positions need
 * over 44M gas, three times SDK 1.0.30's default create gas (13.5M) and over Ethereum's
 * per-transaction cap (EIP-7825, 16,777,216); the presets have 44. It also keeps this check's
 * worst case near 10 ms (about 100 ms for 20,000 positions here).
 */
export const MAX_TOTAL_POSITIONS = 2_000

const sqrtPrice = (tick: number) => Math.exp(tick * HALF_LN_BASE) * Q96

/** Multicurve.sol's alignTick: down for the token0 side, up for token1 (towards the close tick). */
const alignTick = (isToken0: boolean, tick: number, spacing: number) =>
  isToken0 ? Math.floor(tick / spacing) * spacing : Math.ceil(tick / spacing) * spacing

const overflow = (index: number, curve: Curve, spacing: number, isToken0: boolean) => [
  {
    field: `curves.${index}`,
    message: `curve ${index} (ticks ${curve.tickLower} to ${curve.tickUpper}, ${curve.numPositions} positions, shares ${curve.shares}) puts more liquidity on one tick than a pool with tick spacing ${spacing} allows when the token is currency${isToken0 ? 0 : 1}: Doppler's initializer reverts (TickLiquidityOverflow). Widen the curve, move it away from the price limits or give it a smaller share`,
  },
]

/**
 * The liquidity Doppler's multicurve initializer mints per tick must stay
 * within the pool's `maxLiquidityPerTick`, or the create reverts
 * (`TickLiquidityOverflow` in v4-core's Pool.sol, or the uint128 cast before
 * it). The positions are those of `calculateLogNormalDistribution`
 * (whetstoneresearch/doppler@a289a75 src/libraries/Multicurve.sol lines
 * 167-215): per curve, `numPositions` ranges from the close tick, stepped
 * and aligned, to the far tick, each holding the curve's supply / n - 1
 * tokens. Whether the token is currency0 depends on its address, which the
 * SDK's random salt decides, so both orientations must fit (the initializer
 * mirrors the ticks for currency1). SDK 1.0.30 knows this rule
 * (`getMaxLiquiditySafeMulticurveTickUpper`) but applies it only to the curve
 * it adds. Computed in floating point with a relative margin of 1e-9.
 */
export const checkMulticurveLiquidity = (
  pad: Pad,
  knobs: Record<string, unknown>,
): KnobProblem[] => {
  const config = (pad.payload as { config?: Record<string, unknown> }).config as {
    sale: { numTokensToSell: string }
    pool: { tickSpacing: number; curves: { default?: Curve[] } }
  }
  const curves = (knobs.curves as Curve[] | undefined) ?? config.pool.curves.default ?? []
  const spacing = config.pool.tickSpacing
  const toSell = BigInt(config.sale.numTokensToSell)
  // Pool.sol counts one tick more than v3 did (177,456 for spacing 10, not 177,455): its own formula.
  const limit = Number(maxLiquidityPerTick(spacing)) * (1 - MARGIN)
  const positions = curves.reduce((sum, curve) => sum + curve.numPositions, 0)
  if (positions > MAX_TOTAL_POSITIONS)
    return [
      {
        field: 'curves',
        message: `the curves hold ${positions} positions; at most ${MAX_TOTAL_POSITIONS} fit one create transaction here (each is minted there and costs at least 22,100 gas)`,
      },
    ]
  for (const isToken0 of [true, false]) {
    const byTick = new Map<number, number>()
    const add = (tick: number, liquidity: number) => {
      const total = (byTick.get(tick) ?? 0) + liquidity
      byTick.set(tick, total)
      return total <= limit
    }
    for (const [index, curve] of curves.entries()) {
      const [lower, upper] = isToken0
        ? [curve.tickLower, curve.tickUpper]
        : [-curve.tickUpper, -curve.tickLower]
      const perPosition = (toSell * BigInt(curve.shares)) / WAD / BigInt(curve.numPositions)
      if (perPosition <= 1n) continue
      const amount = Number(perPosition - 1n)
      const far = isToken0 ? upper : lower
      const close = isToken0 ? lower : upper
      const spread = upper - lower
      const farSqrt = sqrtPrice(far)
      let atFar = 0
      for (let i = 0; i < curve.numPositions; i++) {
        const step = Math.floor((i * spread) / curve.numPositions)
        const start = alignTick(isToken0, isToken0 ? close + step : close - step, spacing)
        if (start === far) continue
        // isToken0: the range runs up from start to far; else down from start to far.
        const startSqrt = isToken0 ? sqrtPrice(start) : 0
        const gap = isToken0
          ? startSqrt * Math.expm1((far - start) * HALF_LN_BASE)
          : farSqrt * Math.expm1((start - far) * HALF_LN_BASE)
        const liquidity = isToken0
          ? (amount * (startSqrt / Q96) * farSqrt) / gap
          : (amount * Q96) / gap
        atFar += liquidity
        if (liquidity > limit || atFar + (byTick.get(far) ?? 0) > limit || !add(start, liquidity))
          return overflow(index, curve, spacing, isToken0)
      }
      if (!add(far, atFar)) return overflow(index, curve, spacing, isToken0)
    }
  }
  return []
}

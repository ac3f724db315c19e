import {
  auctionValues,
  checkDynamicAuction,
  computeOptimalGamma,
  HALF_UINT160,
  type KnobProblem,
  PD_SLUGS,
} from './check-dynamic-auction.ts'
import { dopplerFirstSlugs, firstSlugRevert, type Slug } from './doppler-first-slugs.ts'
import type { Pad } from './pad.ts'
import { maxLiquidityPerTick } from './v4-math.ts'

/**
 * The liquidity a Doppler dynamic auction's hook adds when its pool is
 * initialized, inside the create transaction, must fit each tick: the upper
 * slug holds one epoch's share of the sale from the start tick, the
 * price-discovery slugs one epoch's share each towards startTick ± gamma, and
 * where one slug ends and the next begins their liquidity adds up. Over
 * v4-core's `maxLiquidityPerTick` (tick spacing 30: (2^128 - 1) / 59,152) the
 * pool's `modifyLiquidity` reverts `TickLiquidityOverflow(tick)`; over
 * uint128 the hook's `LiquidityAmounts` reverts first, `Error("liquidity
 * overflow")`; both come back wrapped in the PoolManager's `WrappedError`, so
 * the whole create reverts. A slug's liquidity grows as its range narrows and
 * as it moves to where the token is dear in the numeraire (low ticks when the
 * token is currency1, high ticks when it is currency0), so narrow, short
 * auctions at absurd prices fail (-183360 against ETH is about 9e7 ETH a
 * token). Exact: the chain's integer arithmetic (doppler-first-slugs.ts).
 * Runs only on auctions the other dynamic rules accept (ticks ordered and
 * clear of the price limits, gamma valid).
 */
export const checkDynamicLiquidity = (pad: Pad, knobs: Record<string, unknown>): KnobProblem[] => {
  if (checkDynamicAuction(pad, knobs).length > 0) return []
  const { tickSpacing, value } = auctionValues(pad, knobs)
  const sale = (pad.payload as { config?: { sale?: { numTokensToSell?: unknown } } }).config?.sale
  if (typeof sale?.numTokensToSell !== 'string')
    throw new Error(`${pad.id}: config.sale.numTokensToSell missing`)
  const startTick = value('startTick') as number
  const endTick = value('endTick') as number
  const duration = value('duration') as number
  const epochLength = value('epochLength') as number
  const given = typeof knobs.gamma === 'number' ? knobs.gamma : undefined
  const gamma = given ?? computeOptimalGamma(startTick, endTick, duration, epochLength, tickSpacing)
  const slugs = dopplerFirstSlugs({
    startTick,
    gamma,
    duration,
    epochLength,
    isToken0: BigInt(value('numeraire') as string) > HALF_UINT160,
    numTokensToSell: BigInt(sale.numTokensToSell),
    numPDSlugs: PD_SLUGS,
    tickSpacing,
  })
  // Past the price limits: checkDynamicAuction's reach rule refuses these first.
  if (!Array.isArray(slugs)) return []
  const limit = maxLiquidityPerTick(tickSpacing)
  const revert = firstSlugRevert(slugs, limit)
  if (!revert) return []
  const names = (list: Slug[]) => list.map((slug) => slug.name).join(' and the ')
  const why =
    revert.error === 'TickLiquidityOverflow'
      ? `the pool reverts TickLiquidityOverflow(${revert.tick}): the ${names(revert.slugs)} put liquidity ${revert.liquidity} on tick ${revert.tick}, over the ${limit} a pool with tick spacing ${tickSpacing} allows on one tick`
      : `${revert.error === 'Overflow' ? "the hook's SafeCastLib reverts Overflow()" : 'the hook\'s LiquidityAmounts reverts Error("liquidity overflow")'}: the ${revert.slug.name} (ticks ${revert.slug.tickLower} to ${revert.slug.tickUpper}) needs liquidity ${revert.slug.liquidity}, over ${revert.error === 'Overflow' ? 'int128' : 'uint128'}`
  return [
    {
      // The price is what overflows: the same slugs fit at a price the token could sell at.
      field: 'startTick',
      message: `the auction's first slugs overflow a tick when the pool is initialized (rule doppler-dynamic-liquidity), so the create reverts: ${why}. Use more epochs, a wider tick range${given !== undefined ? ' or a smaller gamma' : ''}, or a start tick where the token is cheaper in the numeraire (${startTick < endTick ? 'higher' : 'lower'}): at this price the tokens for sale need more liquidity than a tick can hold`,
    },
  ]
}

import type { Pad } from './pad.ts'

/** A knob an arithmetic rule refuses: the field to blame and why, in words an agent can act on. */
export type KnobProblem = { field: string; message: string }

const WAD = 10n ** 18n
// The SDK's isToken0Expected: a numeraire above 2^159 - 1 sorts as currency1, so the token is currency0.
export const HALF_UINT160 = 2n ** 159n - 1n
const MAX_TICK = 887272
// The SDK's DEFAULT_PD_SLUGS: the price-discovery slugs the payload asks for.
export const PD_SLUGS = 5

/** The SDK's computeOptimalGamma (doppler-sdk 1.0.30), used when the intent gives no gamma. */
export const computeOptimalGamma = (
  startTick: number,
  endTick: number,
  duration: number,
  epochLength: number,
  tickSpacing: number,
) => {
  const perEpochTicks = Math.ceil(Math.abs(endTick - startTick) / (duration / epochLength))
  return Math.max(tickSpacing, Math.ceil(perEpochTicks / tickSpacing) * tickSpacing)
}

const defaultsCache = new WeakMap<object, Record<string, unknown>>()

/** The literal defaults a payload template gives its knobs (`{ "$knob": name, "default": value }`). */
const knobDefaults = (template: unknown, into: Record<string, unknown> = {}) => {
  if (typeof template !== 'object' || template === null) return into
  const { $knob, default: fallback } = template as { $knob?: unknown; default?: unknown }
  if (typeof $knob === 'string' && fallback !== undefined) into[$knob] = fallback
  for (const value of Object.values(template)) knobDefaults(value, into)
  return into
}

const blame = (knobs: Record<string, unknown>, preferred: string, other: string) =>
  preferred in knobs || !(other in knobs) ? preferred : other

/** The payload's tick spacing, and each knob's value as the payload will carry it (the intent's, else the default). */
export const auctionValues = (pad: Pad, knobs: Record<string, unknown>) => {
  const config = pad.payload as { config?: { pool?: { tickSpacing?: unknown } } }
  const tickSpacing = config.config?.pool?.tickSpacing
  if (typeof tickSpacing !== 'number') throw new Error(`${pad.id}: config.pool.tickSpacing missing`)
  const defaults = defaultsCache.get(pad) ?? knobDefaults(pad.payload)
  defaultsCache.set(pad, defaults)
  const value = (name: string) => (name in knobs ? knobs[name] : defaults[name])
  return { tickSpacing, value }
}

/**
 * The dynamic auction's cross-knob arithmetic, on the values the payload will
 * carry (the intent's knobs, else the pad's defaults): the rules of
 * doppler-sdk 1.0.30's validateDynamicAuctionParams and of the Doppler hook's
 * constructor (whetstoneresearch/doppler src/initializers/Doppler.sol).
 */
export const checkDynamicAuction = (pad: Pad, knobs: Record<string, unknown>): KnobProblem[] => {
  const { tickSpacing, value } = auctionValues(pad, knobs)
  const duration = value('duration')
  const epochLength = value('epochLength')
  const startTick = value('startTick')
  const endTick = value('endTick')
  const numeraire = value('numeraire')
  const problems: KnobProblem[] = []

  if (typeof duration === 'number' && typeof epochLength === 'number') {
    if (duration % epochLength !== 0)
      problems.push({
        field: blame(knobs, 'epochLength', 'duration'),
        message: `epochLength (${epochLength}) must divide duration (${duration}) evenly: the SDK refuses otherwise`,
      })
  }
  if (
    typeof startTick === 'number' &&
    typeof endTick === 'number' &&
    typeof numeraire === 'string'
  ) {
    const tokenIsCurrency0 = BigInt(numeraire) > HALF_UINT160
    if (tokenIsCurrency0 ? startTick <= endTick : startTick >= endTick)
      problems.push({
        field: blame(knobs, 'startTick', 'endTick'),
        message: tokenIsCurrency0
          ? `with numeraire ${numeraire}, which sorts above the token (the token is currency0), startTick (${startTick}) must be greater than endTick (${endTick})`
          : `with numeraire ${numeraire}, which sorts below the token (the token is currency1), startTick (${startTick}) must be less than endTick (${endTick})`,
      })
  }
  if (
    problems.length === 0 &&
    typeof duration === 'number' &&
    typeof epochLength === 'number' &&
    typeof startTick === 'number' &&
    typeof endTick === 'number'
  ) {
    const given = typeof knobs.gamma === 'number' ? knobs.gamma : undefined
    const gamma =
      given ?? computeOptimalGamma(startTick, endTick, duration, epochLength, tickSpacing)
    const how = given === undefined ? 'computed by the SDK from the ticks and epochs' : 'given'
    if (gamma % tickSpacing !== 0)
      problems.push({
        field: given === undefined ? 'startTick' : 'gamma',
        message: `gamma (${gamma}, ${how}) must be divisible by the tick spacing ${tickSpacing}`,
      })
    // Doppler.sol: mulDiv(mulDiv(epochLength, WAD, timeDelta), gamma, WAD) == 0 reverts InvalidGamma.
    else if (((BigInt(epochLength) * WAD) / BigInt(duration)) * BigInt(gamma) < WAD)
      problems.push({
        field: given === undefined ? blame(knobs, 'epochLength', 'duration') : 'gamma',
        message: `gamma (${gamma}, ${how}) × epochLength / duration must be at least 1 tick per epoch (${duration / epochLength} epochs), or the Doppler hook reverts InvalidGamma: use fewer, longer epochs${given === undefined ? ' or a wider tick range' : ' or a larger gamma'}`,
      })
    else {
      // The pool's initialize runs the hook's afterInitialize, which places the upper slug and the
      // price-discovery slugs from the start tick away from the end, as far as startTick ± gamma
      // (Doppler.sol at d223428: _getTicksBasedOnState, _computeUpperSlugData,
      // _computePriceDiscoverySlugsData); a slug past ±887272 reverts InvalidTick. The reach kept
      // free is gamma plus a tick spacing per slug and for alignment (conservative by up to 210).
      const reach = gamma + tickSpacing * (PD_SLUGS + 2)
      const tokenIsCurrency0 = typeof numeraire === 'string' && BigInt(numeraire) > HALF_UINT160
      const far = tokenIsCurrency0 ? startTick + reach : startTick - reach
      if (far > MAX_TICK || far < -MAX_TICK)
        problems.push({
          field: 'startTick',
          message: `the auction's first slugs reach from startTick (${startTick}) ${tokenIsCurrency0 ? 'up' : 'down'} by about gamma (${gamma}, ${how}) + ${tickSpacing * (PD_SLUGS + 2)}, past the price limit ${tokenIsCurrency0 ? MAX_TICK : -MAX_TICK}: the pool's initialization reverts (InvalidTick in the Doppler hook). Start at least ${reach} ticks inside the limit`,
        })
    }
  }
  const minProceeds = value('minProceeds')
  const maxProceeds = value('maxProceeds')
  if (typeof minProceeds === 'string' && typeof maxProceeds === 'string') {
    if (BigInt(minProceeds) > BigInt(maxProceeds))
      problems.push({
        field: blame(knobs, 'minProceeds', 'maxProceeds'),
        message: `minProceeds (${minProceeds}) must not exceed maxProceeds (${maxProceeds}): the Doppler hook reverts InvalidProceedLimits`,
      })
  }
  return problems
}

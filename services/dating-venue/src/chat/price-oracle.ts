/**
 * The studio token's USD price as the venue uses it for free-message tiers:
 * read from a source at most once an hour, and stored so that it may fall
 * at once but rise only slowly (a brief pump cannot unlock tiers). A source
 * that fails keeps the stored price for a bounded time; after that the price
 * is 0 and every holding counts as nothing (the safe side: 3 free messages).
 */
export type PriceOracleParameters = {
  /** The current price, in millionths of a dollar per whole token. Throws when it cannot say. */
  source: () => Promise<bigint>
  now?: () => number
  /** How long a read is reused before the source is asked again (1 h). */
  cacheMs?: number
  /** The most the stored price may rise per hour, in basis points of itself (1,000 = 10 %). */
  maxRiseBpsPerHour?: bigint
  /** How long the stored price stands when the source keeps failing (6 h); then 0. */
  staleAfterMs?: number
}

export type StoredPrice = {
  priceMicroUsd: bigint
  /** When the stored price was last moved toward a successful read. */
  updatedAt: number
  /** When the source last answered. */
  observedAt: number
}

const HOUR = 3_600_000

/**
 * The stored price after a read of `observed` at `now`: a fall (or no
 * change) is taken as it is; a rise is capped at `maxRiseBpsPerHour` of the
 * stored price per hour since it was last moved, pro rata, in integers.
 */
export const nextStoredPrice = (
  stored: StoredPrice | undefined,
  observed: bigint,
  now: number,
  maxRiseBpsPerHour: bigint,
): StoredPrice => {
  // No history: the first read stands (an operator starts the venue at a known price).
  if (!stored || observed <= stored.priceMicroUsd)
    return { priceMicroUsd: observed, updatedAt: now, observedAt: now }
  const elapsed = BigInt(Math.max(0, now - stored.updatedAt))
  const allowed =
    stored.priceMicroUsd +
    (stored.priceMicroUsd * maxRiseBpsPerHour * elapsed) / (10_000n * BigInt(HOUR))
  return { priceMicroUsd: observed < allowed ? observed : allowed, updatedAt: now, observedAt: now }
}

export type PriceOracle = {
  /** The price to use now (0 when stale). */
  price: () => Promise<bigint>
  /** The stored state, for the console and tests. */
  stored: () => StoredPrice | undefined
}

/**
 * An oracle over `source`. One per process; `load`/`save` persist the
 * stored price (so replicas and restarts share the slow rise), when given.
 */
export const createPriceOracle = ({
  source,
  now = Date.now,
  cacheMs = HOUR,
  maxRiseBpsPerHour = 1_000n,
  staleAfterMs = 6 * HOUR,
  load,
  save,
}: PriceOracleParameters & {
  load?: () => Promise<StoredPrice | undefined>
  save?: (price: StoredPrice) => Promise<void>
}): PriceOracle => {
  let state: StoredPrice | undefined
  let loaded = false
  let lastAttempt = Number.NEGATIVE_INFINITY
  let reading: Promise<void> | undefined

  const refresh = async () => {
    if (!loaded) {
      state = (await load?.()) ?? state
      loaded = true
    }
    const at = now()
    // Read at most once per cacheMs, whether the last read answered or failed.
    if (at - lastAttempt < cacheMs) return
    lastAttempt = at
    try {
      state = nextStoredPrice(state, await source(), at, maxRiseBpsPerHour)
      await save?.(state)
    } catch {
      // The source failed: the stored price stands until it is stale.
    }
  }

  return {
    price: async () => {
      reading ??= refresh().finally(() => {
        reading = undefined
      })
      await reading
      if (!state || now() - state.observedAt > staleAfterMs) return 0n
      return state.priceMicroUsd
    },
    stored: () => state,
  }
}

/**
 * The studio token's USD price as the venue uses it for free-message tiers:
 * read from a source at most once an hour (by one replica for all), and
 * stored so that it may fall at once but rise only slowly (a brief pump
 * cannot unlock tiers). A source that fails keeps the stored price for a
 * bounded time; after that the price is 0 and every holding counts as
 * nothing (the safe side: 3 free messages).
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
}

/** What is stored: the price (none before the source first answered) and the last read's time. */
export type StoredState = { price: StoredPrice | undefined; attemptedAt: number }

/**
 * Where the stored price lives: the database row every replica shares
 * (`studioPriceStore`), or this process's memory.
 */
export type PriceStore = {
  read: () => Promise<StoredState | undefined>
  /**
   * Takes the next read of the source, at `at`, if the last one was at or
   * before `dueBy` (or there was none), in one atomic write: the stored
   * price as it stands, or undefined when it is not due (another caller
   * took it).
   */
  claim: (at: number, dueBy: number) => Promise<{ price: StoredPrice | undefined } | undefined>
  /** Stores the price read by the claim made at `claimedAt`, unless a later claim followed it. */
  save: (price: StoredPrice, claimedAt: number) => Promise<void>
}

/** The stored price in this process's memory (one process, or a test). */
export const memoryPriceStore = (): PriceStore => {
  let state: StoredState | undefined
  return {
    read: async () => state,
    claim: async (at, dueBy) => {
      if (state && state.attemptedAt > dueBy) return undefined
      state = { price: state?.price, attemptedAt: at }
      return { price: state.price }
    },
    save: async (price, claimedAt) => {
      if (state?.attemptedAt === claimedAt) state = { price, attemptedAt: claimedAt }
    },
  }
}

/**
 * An oracle over `source`. The stored price is the truth (`store`: the
 * database, so replicas and restarts share it): each call reads it, and
 * whether a read of the source is due is decided from its time, by one
 * atomic claim, so replicas racing read the source once. The rise is capped
 * against the price stored when the claim was made. Concurrent callers in
 * one process share one evaluation.
 */
export const createPriceOracle = ({
  source,
  now = Date.now,
  cacheMs = HOUR,
  maxRiseBpsPerHour = 1_000n,
  staleAfterMs = 6 * HOUR,
  store = memoryPriceStore(),
}: PriceOracleParameters & { store?: PriceStore }): PriceOracle => {
  let evaluating: Promise<StoredPrice | undefined> | undefined

  const evaluate = async () => {
    const at = now()
    const stored = await store.read()
    // Read at most once per cacheMs, whether the last read answered or failed.
    if (stored && at - stored.attemptedAt < cacheMs) return stored.price
    const claimed = await store.claim(at, at - cacheMs)
    // Another caller (another replica) is reading the source: the stored price stands meanwhile.
    if (!claimed) return stored?.price
    try {
      const next = nextStoredPrice(claimed.price, await source(), at, maxRiseBpsPerHour)
      await store.save(next, at)
      return next
    } catch {
      // The source failed: the stored price stands until it is stale.
      return claimed.price
    }
  }

  return {
    price: async () => {
      evaluating ??= evaluate().finally(() => {
        evaluating = undefined
      })
      const stored = await evaluating
      if (!stored || now() - stored.observedAt > staleAfterMs) return 0n
      return stored.priceMicroUsd
    },
  }
}

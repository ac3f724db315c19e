/**
 * The spec's free daily chat messages by the wallet's holding of the studio
 * token, in US cents: 0 -> 3; $30 -> 50; $60 -> 100; $90 -> 200; $120 -> 400;
 * each further $30 doubles, capped at 500 a day. Integer cents, so a
 * boundary is exact ($29.99 is the 3-message tier, $30.00 the 50).
 */
export const FREE_MESSAGE_TIERS: ReadonlyArray<{ fromCents: bigint; messages: number }> = [
  { fromCents: 0n, messages: 3 },
  { fromCents: 3_000n, messages: 50 },
  { fromCents: 6_000n, messages: 100 },
  { fromCents: 9_000n, messages: 200 },
  { fromCents: 12_000n, messages: 400 },
  // $150 would double 400 to 800: the cap.
  { fromCents: 15_000n, messages: 500 },
]

export type HoldingTier = {
  /** Free messages a UTC day at this holding. */
  messages: number
  /** The next tier, and the holding (US cents) it needs; null at the top. */
  next: { messages: number; fromCents: bigint; moreCents: bigint } | null
}

/**
 * The tier of a holding worth `holdingCents`.
 *
 * @example holdingTier(2_999n) // { messages: 3, next: { messages: 50, fromCents: 3000n, moreCents: 1n } }
 */
export const holdingTier = (holdingCents: bigint): HoldingTier => {
  const worth = holdingCents < 0n ? 0n : holdingCents
  let index = 0
  while (index + 1 < FREE_MESSAGE_TIERS.length && worth >= FREE_MESSAGE_TIERS[index + 1]!.fromCents)
    index++
  const tier = FREE_MESSAGE_TIERS[index]!
  const next = FREE_MESSAGE_TIERS[index + 1]
  return {
    messages: tier.messages,
    next: next
      ? { messages: next.messages, fromCents: next.fromCents, moreCents: next.fromCents - worth }
      : null,
  }
}

/** The UTC day a message counts against: free messages reset at 00:00 UTC. */
export const utcDay = (at: Date) => at.toISOString().slice(0, 10)

/**
 * A holding's worth in US cents: `balance` token units (of `decimals`) at
 * `priceMicroUsd` (millionths of a dollar per whole token), rounded down.
 */
export const holdingCents = (balance: bigint, decimals: number, priceMicroUsd: bigint) =>
  (balance * priceMicroUsd) / 10n ** BigInt(decimals) / 10_000n

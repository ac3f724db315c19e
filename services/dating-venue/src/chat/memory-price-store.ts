import type { PriceStore, StoredState } from './price-oracle.ts'

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

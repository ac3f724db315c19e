import type { PaymentReceipt } from './types.ts'

/**
 * Where used payment references are kept. A reference (EIP-3009 nonce,
 * transaction hash, MPP reference) fulfils at most one request: `claim` must
 * be atomic across every replica (services back it with a PostgreSQL table
 * and a unique key).
 */
export type ReceiptStore = {
  /** True when this call took the reference; false when it was already taken. */
  claim: (reference: string) => Promise<boolean>
  /** Gives back a claim whose payment did not go through, so the payer may retry. */
  release: (reference: string) => Promise<void>
  /** Records the receipt of a fulfilled claim. */
  complete: (reference: string, receipt: PaymentReceipt) => Promise<void>
}

/** A process-local store, for tests and single-process use. */
export const createMemoryReceiptStore = (): ReceiptStore & {
  receipts: Map<string, PaymentReceipt | null>
} => {
  const receipts = new Map<string, PaymentReceipt | null>()
  return {
    receipts,
    claim: async (reference) => {
      if (receipts.has(reference)) return false
      receipts.set(reference, null)
      return true
    },
    release: async (reference) => {
      if (receipts.get(reference) === null) receipts.delete(reference)
    },
    complete: async (reference, receipt) => {
      receipts.set(reference, receipt)
    },
  }
}

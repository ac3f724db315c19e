import type { PaymentReason } from './errors.ts'

/**
 * How a settlement attempt ended, as far as this process could tell.
 * `refused`: the rail said no (the chain is still asked when a settle call
 * went out). `unknown`: the answer was lost; the chain decides.
 */
export type SettleOutcome =
  | { kind: 'settled'; transaction: string; payer: string; header?: [string, string] }
  | { kind: 'refused'; reason: PaymentReason; detail: string }
  | { kind: 'unknown'; detail: string }

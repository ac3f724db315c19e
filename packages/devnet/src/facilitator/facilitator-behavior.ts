import type { SettleResponse } from '@x402/core/types'

/**
 * A fault on `POST /settle` only; `/verify` and `/supported` answer normally. Except for
 * `down`, the settlement really runs on-chain first and only its answer is lost or held back.
 */
export type SettleFault =
  /** 503 before settling: nothing touches the chain (facilitator down before settle). */
  | { settle: 'down' }
  /** Settles, then resets the TCP connection without an HTTP answer. */
  | { settle: 'reset' }
  /** Settles, then sends the true answer only after `delayMs` (past the caller's timeout). */
  | { settle: 'late'; delayMs: number }
  /** Settles, then answers 500 `{ error: 'internal' }`. */
  | { settle: 'error' }
  /**
   * Settles, calls `onSettled` with the facilitator's result, and sends the true answer once
   * `until` settles: time to stop a database or kill the service between settlement and write.
   */
  | {
      settle: 'hold'
      until: Promise<unknown>
      onSettled?: (settlement: SettleResponse) => void
    }

/**
 * How the devnet facilitator answers: normally, 503 for every route (`down`), every route
 * after `delayMs`, or with a {@link SettleFault} on `/settle`. A behaviour is read when a
 * request arrives and applies to every request while it is set.
 */
export type FacilitatorBehavior = 'normal' | 'down' | { delayMs: number } | SettleFault

/** The settle fault in `behavior`, if it is one. */
export const getSettleFault = (behavior: FacilitatorBehavior): SettleFault | undefined =>
  typeof behavior === 'object' && 'settle' in behavior ? behavior : undefined

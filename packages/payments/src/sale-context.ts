import type { ChainAnswer } from './chain/settlement-reader.ts'
import type { PaymentChallenge } from './challenge.ts'
import type { LedgerRow } from './ledger/ledger-table.ts'
import type { MppAttempt } from './mpp/create-mpp-adapter.ts'
import type { PaymentsDeps } from './payments-deps.ts'
import type { SaleOutcome } from './sale-outcome.ts'
import type { SellParameters } from './sale-product.ts'
import type { X402Attempt } from './x402/x402-attempt.ts'

/** One sale under way: the request, what it sells, its challenge and the payment read. */
export type Sale = {
  deps: PaymentsDeps
  request: Request
  params: SellParameters<unknown, unknown>
  challenge: PaymentChallenge
  attempt: X402Attempt | MppAttempt
}

/** How long a payer waits before retrying a pending payment. */
export const retryAfterSeconds = (deps: PaymentsDeps) => Math.min(deps.leaseSeconds, 5)

/**
 * Pending: the payment is being settled by another request (`busy`) or its
 * outcome is not known yet (`unknown`). Either way the payer retries with
 * the same payment, never a new one.
 */
export const pendingOutcome = (
  reference: string,
  why: 'busy' | 'unknown',
  retryAfter: number,
): SaleOutcome<never> => ({ type: 'pending', reference, why, retryAfter })

/** The chain's answer, or undefined when the chain cannot be asked (still unknown). */
export const askChain = async (
  deps: PaymentsDeps,
  row: LedgerRow,
): Promise<ChainAnswer | undefined> => {
  try {
    return await deps.chain.read(row.proof as never, row.createdAt)
  } catch (error) {
    deps.logger?.warn(
      { reference: row.reference, err: error },
      'chain not reachable: payment stays unresolved',
    )
    return undefined
  }
}

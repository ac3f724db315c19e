import { PaymentReason } from './errors.ts'
import type { LedgerRow } from './ledger/ledger-table.ts'
import { askChain, pendingOutcome, type Sale } from './sale-context.ts'
import type { PaymentRefusal, SaleOutcome } from './sale-outcome.ts'
import {
  deliverSale,
  expiredRefusal,
  failSale,
  settleAndDeliver,
  settledOnChain,
} from './settle-sale.ts'

/** Only the request the payment was made for is answered from the ledger. */
export const answerExisting = (sale: Sale, row: LedgerRow): Promise<SaleOutcome> | SaleOutcome => {
  const { params, challenge } = sale
  if (row.requestKey !== params.requestKey || row.kind !== params.product.kind)
    return {
      type: 'refused',
      challenge,
      reason: PaymentReason.alreadyUsed,
      detail: 'this payment was already used for another request',
    }
  return resumeSale(sale, row)
}

/**
 * The facilitator refused to verify a payment that has no claim yet: a
 * new payment is refused (nothing written); a payment the ledger knows is
 * a retry, answered from its row (a settle sent before is checked on-chain).
 */
export const refusedBeforeClaim = async (
  sale: Sale,
  refusal: PaymentRefusal,
): Promise<SaleOutcome> => {
  const { deps, attempt, challenge } = sale
  const row = await deps.ledger.get(attempt.reference)
  if (!row) return { type: 'refused', challenge, ...refusal }
  if (row.state !== 'failed') return answerExisting(sale, row)
  if (row.settleAttempts > 0 && row.requestKey === sale.params.requestKey) {
    const answer = await askChain(deps, row)
    if (answer?.status === 'used') return settledOnChain(sale, row, answer.transaction)
  }
  return { type: 'refused', challenge, ...refusal }
}

/** A request whose payment is already in the ledger: a retry, or a race with another request. */
export const resumeSale = async (sale: Sale, row: LedgerRow): Promise<SaleOutcome> => {
  const { deps, attempt } = sale
  if (row.state === 'settled') return deliverSale(sale)
  const leaseLive = row.leaseUntil !== null && row.leaseUntil.getTime() > Date.now()
  const leaseLeft = leaseLive ? Math.ceil((row.leaseUntil!.getTime() - Date.now()) / 1000) : 1
  if (row.state === 'claimed' && row.settleAttempts === 0) {
    if (leaseLive) return pendingOutcome(attempt.reference, 'busy', leaseLeft)
    if (!(await deps.ledger.takeOver(row, deps.leaseSeconds)))
      return pendingOutcome(attempt.reference, 'busy', 1)
    return settleAndDeliver(sale, 0)
  }
  // A settle call went out before: the chain says whether it moved the money.
  const answer = await askChain(deps, row)
  if (answer?.status === 'used') return settledOnChain(sale, row, answer.transaction)
  if (answer?.status === 'unused' && answer.final) return failSale(sale, row, expiredRefusal)
  if (row.state !== 'unknown' && leaseLive)
    return pendingOutcome(attempt.reference, 'busy', leaseLeft)
  // Not used yet: settling again is safe, the chain executes an authorization at most once.
  if (!(await deps.ledger.takeOver(row, deps.leaseSeconds)))
    return pendingOutcome(attempt.reference, 'busy', 1)
  return settleAndDeliver(sale, row.settleAttempts)
}

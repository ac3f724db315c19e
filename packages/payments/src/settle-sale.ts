import { PaymentReason } from './errors.ts'
import type { LedgerRow } from './ledger/ledger-table.ts'
import { receiptFromChain, receiptHeader } from './receipts.ts'
import { askChain, pendingOutcome, retryAfterSeconds, type Sale } from './sale-context.ts'
import type { PaymentRefusal, SaleOutcome } from './sale-outcome.ts'
import type { SettleOutcome } from './settle-outcome.ts'
import type { PaymentReceipt } from './types.ts'
import { settleX402, verifyX402 } from './x402/x402-attempt.ts'

type Outcome = Promise<SaleOutcome>

export const expiredRefusal: PaymentRefusal = {
  reason: PaymentReason.expired,
  detail: 'the authorization expired unused: sign a new payment',
}

/** Sends the settle call of a sale's payment through its rail. */
export const settlePayment = ({ deps, attempt, request, params }: Sale) =>
  attempt.rail === 'x402'
    ? settleX402(deps.x402!.facilitator, attempt)
    : deps.mpp!.settle(request, params.price, params.resource, params.mppModes)

/** Settles a payment this request took over (`claimed` again), then delivers. */
export const settleAndDeliver = async (sale: Sale, previousAttempts: number): Outcome => {
  const { deps, attempt } = sale
  if (attempt.rail === 'x402') {
    const verified = await verifyX402(deps.x402!.facilitator, attempt)
    // Verification refused; nothing was sent to settle by this request.
    if (!verified.ok) return refusedOutcome(sale, verified, previousAttempts > 0)
  }
  if (!(await deps.ledger.markSettling(attempt.reference, deps.leaseSeconds)))
    return pendingOutcome(attempt.reference, 'busy', 1)
  return afterSettle(sale, await settlePayment(sale), previousAttempts + 1)
}

/** What the settle call said, made final: delivered, refused (checked on-chain) or pending. */
export const afterSettle = async (
  sale: Sale,
  outcome: SettleOutcome,
  attempts: number,
): Outcome => {
  const { deps, attempt, params } = sale
  if (outcome.kind === 'settled') {
    return deliverSale(sale, {
      rail: attempt.rail,
      ...(attempt.rail === 'x402' ? { version: attempt.version } : {}),
      network: attempt.rail === 'x402' ? attempt.requirement.network : attempt.network,
      payer: outcome.payer || attempt.payer,
      amount: params.price.amount.toString(),
      transaction: outcome.transaction,
      reference: attempt.reference,
      ...(outcome.header ? { header: outcome.header } : {}),
    })
  }
  // An x402 settle refusal, or an MPP refusal after an earlier lost answer, is checked on-chain.
  if (outcome.kind === 'refused')
    return refusedOutcome(sale, outcome, attempt.rail === 'x402' || attempts > 1)
  await deps.ledger.markUnknown(attempt.reference, outcome.detail)
  deps.logger?.warn(
    { reference: attempt.reference, detail: outcome.detail },
    'settle outcome unknown: asking the chain',
  )
  const row = (await deps.ledger.get(attempt.reference))!
  const answer = await askChain(deps, row)
  if (answer?.status === 'used') return settledOnChain(sale, row, answer.transaction)
  if (answer?.status === 'unused' && answer.final) return failSale(sale, row, expiredRefusal)
  return pendingOutcome(attempt.reference, 'unknown', retryAfterSeconds(deps))
}

/** A refusal: final, unless a settle call went out and the chain shows (or cannot deny) a transfer. */
export const refusedOutcome = async (
  sale: Sale,
  refusal: PaymentRefusal,
  settleWasSent: boolean,
): Outcome => {
  const { deps, attempt } = sale
  if (settleWasSent) {
    const row = (await deps.ledger.get(attempt.reference))!
    const answer = await askChain(deps, row)
    if (answer?.status === 'used') return settledOnChain(sale, row, answer.transaction)
    if (!answer) {
      await deps.ledger.markUnknown(attempt.reference, refusal.detail)
      return pendingOutcome(attempt.reference, 'unknown', retryAfterSeconds(deps))
    }
  }
  const row = (await deps.ledger.get(attempt.reference))!
  return failSale(sale, row, refusal)
}

/** Nothing moved: the row is failed, the product's hold given back, and the payer refused. */
export const failSale = async (sale: Sale, row: LedgerRow, refusal: PaymentRefusal): Outcome => {
  const { deps, params, challenge } = sale
  const { product } = params
  await deps.ledger.fail(
    row.reference,
    `${refusal.reason}: ${refusal.detail}`,
    product.release && ((tx) => product.release!(tx, row.order ?? params.order, row.reference)),
  )
  return { type: 'refused', challenge, ...refusal }
}

export const settledOnChain = (sale: Sale, row: LedgerRow, transaction: string) =>
  deliverSale(sale, receiptFromChain(row, transaction))

/** Delivers (once); `settled` records the settlement in the same transaction. */
export const deliverSale = async (sale: Sale, settled?: PaymentReceipt): Outcome => {
  const { deps, attempt, params } = sale
  const { product } = params
  const { fulfilment, row } = await deps.ledger.deliver(
    attempt.reference,
    (tx, paid) => product.fulfil(tx, paid.order ?? params.order, paid.receipt as PaymentReceipt),
    settled ? { settled } : {},
  )
  const receipt = row.receipt as PaymentReceipt
  return { type: 'delivered', fulfilment, receipt, receiptHeader: receiptHeader(receipt) }
}

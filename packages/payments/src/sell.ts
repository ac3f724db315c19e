import { paymentChallenge } from './challenge.ts'
import type { PaymentsDeps } from './payments-deps.ts'
import { readPayment } from './read-payment.ts'
import { answerExisting, refusedBeforeClaim } from './resume-sale.ts'
import { pendingOutcome, retryAfterSeconds, type Sale } from './sale-context.ts'
import type { SaleOutcome } from './sale-outcome.ts'
import type { SellParameters } from './sale-product.ts'
import { afterSettle, settlePayment } from './settle-sale.ts'
import { takeVerifiedAhead } from './verify-ahead.ts'
import { verifyX402 } from './x402/x402-attempt.ts'

/**
 * Sells one request exactly once, and says how it went as data (the route
 * answers it, see `saleResponse`). Without payment: `challenge`. With one:
 * the payment is claimed in the ledger (and the product held) before any
 * money moves, verified, settled, and the goods delivered in one
 * transaction with the ledger's record; a retry of the same payment gets the
 * same `delivered`. When the settle answer is lost, the chain decides; when
 * it cannot yet, the outcome is `pending`, never a 402 that asks to pay again.
 *
 * @example
 * const outcome = await sell(deps.payments, c.req.raw, { price, resource, product, order, requestKey })
 * return saleResponse(outcome, { answer: (fulfilment) => ({ status: 200, body: fulfilment }) })
 */
export const sell = async <order, fulfilment>(
  deps: PaymentsDeps,
  request: Request,
  params: SellParameters<order, fulfilment>,
): Promise<SaleOutcome<fulfilment>> => {
  const challenge = paymentChallenge(deps, request, params)
  const ahead = takeVerifiedAhead(request, challenge)
  const read = ahead
    ? { ok: true as const, attempt: ahead.attempt }
    : readPayment(deps, request, params, challenge)
  if (!read) return { type: 'challenge', challenge }
  if (!read.ok) return { type: 'refused', challenge, reason: read.reason, detail: read.detail }
  const refusedPayer = params.payer?.(read.attempt.payer)
  if (refusedPayer) return { type: 'payer-refused', refusal: refusedPayer }
  const sale: Sale = {
    deps,
    request,
    params: params as SellParameters<unknown, unknown>,
    challenge,
    attempt: read.attempt,
  }
  const { attempt } = sale
  const { product, order } = params
  try {
    // x402 is verified while the claim commits (straight into `settling`), so
    // a verified payment goes to settle with nothing left to write, and a
    // refused one is withdrawn: its row and its hold are taken back before
    // the 402, as if never written. A retry of a payment already in the
    // ledger fails verification (its nonce is used) and is answered from the
    // ledger.
    const verifying =
      attempt.rail === 'x402'
        ? (ahead?.verifying ?? verifyX402(deps.x402!.facilitator, attempt))
        : undefined
    const claiming = deps.ledger
      .claim(
        {
          reference: attempt.reference,
          kind: product.kind,
          requestKey: params.requestKey,
          rail: attempt.rail,
          network: attempt.rail === 'x402' ? attempt.requirement.network : attempt.network,
          amount: params.price.amount,
          payTo: attempt.rail === 'x402' ? attempt.requirement.payTo : attempt.payTo,
          payer: attempt.payer,
          proof: attempt.proof,
          order,
        },
        {
          leaseSeconds: deps.leaseSeconds,
          hold: product.hold && ((tx) => product.hold!(tx, order, attempt.reference)),
          state: 'settling',
        },
      )
      .catch((error: unknown) => {
        // Nothing is recorded and nothing moved yet; the payer may retry with the same payment.
        deps.logger?.error({ err: error, reference: attempt.reference }, 'payment claim failed')
        return undefined
      })
    if (verifying) {
      const verified = await verifying
      if (!verified.ok) {
        const claim = await claiming
        if (claim?.kind === 'new')
          await deps.ledger.withdraw(
            attempt.reference,
            claim,
            `${verified.reason}: ${verified.detail}`,
            product.release && ((tx) => product.release!(tx, order, attempt.reference)),
          )
        return (await refusedBeforeClaim(sale, verified)) as SaleOutcome<fulfilment>
      }
    }
    const claim = await claiming
    if (!claim) return pendingOutcome(attempt.reference, 'unknown', retryAfterSeconds(deps))
    if (claim.kind === 'refused') return { type: 'hold-refused', refusal: claim.refusal }
    if (claim.kind === 'existing')
      return (await answerExisting(sale, claim.row)) as SaleOutcome<fulfilment>
    const outcome = await afterSettle(sale, await settlePayment(sale), claim.settleAttempts)
    return outcome as SaleOutcome<fulfilment>
  } catch (error) {
    // The database or the chain failed mid-way: the ledger row keeps what is
    // known, the reconciler finishes it, and the same payment may be retried.
    deps.logger?.error({ err: error, reference: attempt.reference }, 'paid request interrupted')
    return pendingOutcome(attempt.reference, 'unknown', retryAfterSeconds(deps))
  }
}

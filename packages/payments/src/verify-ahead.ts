import { type PaymentChallenge, paymentChallenge } from './challenge.ts'
import type { PaymentsDeps } from './payments-deps.ts'
import { readPayment } from './read-payment.ts'
import type { SaleTerms } from './sale-product.ts'
import { verifyX402, type X402Attempt } from './x402/x402-attempt.ts'

/**
 * Payments read and verifications started by `verifyAhead`, by request: each
 * is used once, by the sale of the same request at the same requirements.
 */
const verifiedAhead = new WeakMap<
  Request,
  { requirements: string; attempt: X402Attempt; verifying: ReturnType<typeof verifyX402> }
>()

/** What a payment is read against: the same requirements read the same payment the same way. */
const requirementsKey = ({ offered, offeredV1 }: PaymentChallenge) =>
  JSON.stringify([offered, offeredV1])

/**
 * Starts the facilitator's `/verify` of a request's x402 payment as the
 * request arrives, so that it runs beside the route's own checks (its
 * credential, its reads) instead of after them. Verifying is a question to
 * the facilitator: nothing is written and nothing moves, and a request the
 * route refuses only cost that question. `sell` on the same request
 * and terms takes the payment as read here and the answer, instead of
 * reading and asking again.
 *
 * @example
 * app.use(REPORT_PATH, (c, next) => (verifyAhead(deps.payments, c.req.raw, terms), next()))
 */
export const verifyAhead = (deps: PaymentsDeps, request: Request, terms: SaleTerms) => {
  if (!deps.x402) return
  const challenge = paymentChallenge(deps, request, terms)
  const read = readPayment(deps, request, terms, challenge)
  if (!read?.ok || read.attempt.rail !== 'x402') return
  verifiedAhead.set(request, {
    requirements: requirementsKey(challenge),
    attempt: read.attempt,
    verifying: verifyX402(deps.x402.facilitator, read.attempt),
  })
}

/** What `verifyAhead` read and asked for this request, if the sale offers the same requirements; once. */
export const takeVerifiedAhead = (request: Request, challenge: PaymentChallenge) => {
  const ahead = verifiedAhead.get(request)
  if (!ahead) return undefined
  verifiedAhead.delete(request)
  return ahead.requirements === requirementsKey(challenge) ? ahead : undefined
}

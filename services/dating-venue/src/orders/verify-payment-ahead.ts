import { type AnyPaidItem, saleTermsOf, verifyAhead } from '@agents/payments'
import type { MiddlewareHandler } from 'hono'
import { credentialHeader } from '../credentials/actor-middleware.ts'
import type { VenueDeps } from '../deps.ts'

/**
 * A paid item's route's first middleware: the facilitator verifies an x402
 * payment while the credential and the route's own checks run (see
 * `verifyAhead`: nothing is written or moved until they all passed). Only
 * for a request that carries a credential, which every paid route of the
 * venue requires: one without is refused before anything is asked.
 */
export const verifyPaymentAhead = (
  deps: Pick<VenueDeps, 'payments' | 'baseUrl'>,
  item: AnyPaidItem,
): MiddlewareHandler =>
  async function paymentVerifiedAhead(c, next) {
    // The item's terms, as its sale offers them (its path on the base URL, which is known
    // once the server listens): a payment read ahead is taken by that sale.
    if (credentialHeader(c) !== undefined)
      verifyAhead(deps.payments, c.req.raw, saleTermsOf(item, { baseUrl: deps.baseUrl() }))
    await next()
  }

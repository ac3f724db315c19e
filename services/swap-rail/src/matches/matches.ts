import {
  carriesPayment,
  decodeBase64Json,
  PAYMENT_REQUIRED_HEADER,
  type PaymentReceipt,
  PaymentRequiredSchema,
  paymentChallenge,
  resourceUrl,
  type SaleAnswer,
  type SaleOutcome,
  sellItem,
  WWW_AUTHENTICATE_HEADER,
} from '@agents/payments'
import { type Refusal, refusal } from '@agents/service-kit'
import { eq } from 'drizzle-orm'
import type { Address } from 'viem'
import { type MatchRow, matches, type OfferRow, offers } from '../db/schema.ts'
import type { SwapDeps } from '../deps.ts'
import type { Grant } from '../grants/grant-signer.ts'
import { formatUsd } from '../money.ts'
import { type MatchFulfilment, matchItem } from './match-item.ts'
import type { MatchView } from './match-schemas.ts'
import { feeTerms, matchPrice, payPath } from './match-terms.ts'

export type MatchWithOffer = { match: MatchRow; offer: OfferRow }

export const getMatch = async (deps: SwapDeps, id: string): Promise<MatchWithOffer | undefined> => {
  const [row] = await deps.database.db
    .select({ match: matches, offer: offers })
    .from(matches)
    .innerJoin(offers, eq(matches.offerId, offers.id))
    .where(eq(matches.id, id))
  return row
}

/** The 402's resource: the match's pay route on the configured base URL, never the request's host. */
const resourceOf = (deps: SwapDeps, { match, offer }: MatchWithOffer) => ({
  url: resourceUrl(deps.baseUrl(), payPath(match.id)),
  description: `Pay match ${match.id}: ${match.mtok} MTok of ${offer.model}`,
})

/** The live 402 of a match's pay route, decoded: what `swap_pay_challenge` and the match view show. */
export const payChallenge = async (deps: SwapDeps, found: MatchWithOffer) => {
  const resource = resourceOf(deps, found)
  const { url } = resource
  const response = await paymentChallenge(deps.payments, new Request(url, { method: 'POST' }), {
    price: matchPrice(found.match, found.offer, deps.fee.recipient),
    resource,
  }).respond()
  const required = response.headers.get(PAYMENT_REQUIRED_HEADER)
  return {
    url,
    // Built just above by the payments package; parsed so the view keeps its documented shape.
    x402: required ? PaymentRequiredSchema.parse(decodeBase64Json(required)) : null,
    mpp: response.headers.get(WWW_AUTHENTICATE_HEADER),
  }
}

const redeemUntil = (match: MatchRow, hours: number) =>
  match.paidAt ? new Date(match.paidAt.getTime() + hours * 3_600_000) : null

/** A fresh grant while the paid match is inside its redemption window, else null. */
export const freshGrant = async (
  deps: SwapDeps,
  { match, offer }: MatchWithOffer,
  now = new Date(),
): Promise<Grant | null> => {
  const until = redeemUntil(match, deps.windows.redemptionWindowHours)
  if (match.status !== 'paid' || !until || now >= until) return null
  return deps.grants.issue(
    { matchId: match.id, model: offer.model, mtok: match.mtok, endpoint: offer.endpoint },
    now,
  )
}

/** The match as served: terms, the live challenge while unpaid, the grant once paid. */
export const matchView = async (
  deps: SwapDeps,
  found: MatchWithOffer,
  now = new Date(),
): Promise<MatchView> => {
  const { match, offer } = found
  const { sellerNet, fee } = feeTerms(match.grossAtomic, match.feeBps)
  const until = redeemUntil(match, deps.windows.redemptionWindowHours)
  const grant = await freshGrant(deps, found, now)
  const payment = match.payment as { rail: string; network: string; transaction: string } | null
  // Past its window an unpaid match is expired already, whether or not the sweep has run,
  // unless it is held for a payment being settled (the sweep leaves those alone too).
  const settling = match.settlingReference !== null
  const status =
    match.status === 'awaiting_payment' && match.payBy <= now && !settling
      ? 'expired'
      : match.status
  return {
    id: match.id,
    status,
    intentId: match.intentId,
    offerId: match.offerId,
    model: offer.model,
    mtok: match.mtok,
    unitPriceUsd: formatUsd(match.unitPriceAtomic),
    gross: match.grossAtomic.toString(),
    grossUsd: formatUsd(match.grossAtomic),
    feeBps: match.feeBps,
    fee: fee.toString(),
    sellerNet: sellerNet.toString(),
    splitAddress: match.splitAddress,
    seller: { endpoint: offer.endpoint, payTo: offer.payTo },
    createdAt: match.createdAt.toISOString(),
    payBy: match.payBy.toISOString(),
    challenge: status === 'awaiting_payment' ? await payChallenge(deps, found) : null,
    paidAt: match.paidAt?.toISOString() ?? null,
    payment: payment
      ? { rail: payment.rail, network: payment.network, transaction: payment.transaction }
      : null,
    redeemUntil: until?.toISOString() ?? null,
    grant,
    next:
      status === 'awaiting_payment'
        ? `pay: POST ${payPath(match.id)} and read the 402 before signing`
        : status === 'expired'
          ? 'the payment window ended: post a new intent'
          : grant
            ? `call POST ${offer.endpoint}/chat/completions with Authorization: Bearer <grant.bearer>`
            : 'the redemption window ended: post a new intent',
  }
}

/** How a paid match is answered: the match with its grant (409 if it closed while settling). */
export const matchAnswer =
  (deps: SwapDeps) =>
  async (
    { matchId, closed }: MatchFulfilment,
    receipt: PaymentReceipt,
  ): Promise<SaleAnswer | Refusal<409>> => {
    const found = await getMatch(deps, matchId)
    if (closed || !found)
      return refusal(409, 'match closed while the payment settled', {
        reference: receipt.reference,
      })
    return { status: 200, body: await matchView(deps, found) }
  }

/**
 * Pays a match. A bare request gets the 402 (or why the match cannot be
 * paid). A paid request goes to the payment ledger, which holds the match,
 * settles once and answers every retry of the same payment alike.
 */
export const payMatch = async (
  deps: SwapDeps,
  request: Request,
  id: string,
): Promise<Refusal<404 | 409 | 410> | { ok: true; outcome: SaleOutcome<MatchFulfilment> }> => {
  const found = await getMatch(deps, id)
  if (!found) return refusal(404, 'no such match')
  if (!carriesPayment(request)) {
    if (found.match.status === 'paid')
      return refusal(409, 'match already paid', { match: `/v1/matches/${id}` })
    if (found.match.status === 'expired' || found.match.payBy.getTime() <= Date.now())
      return refusal(410, 'payment window ended: post a new intent')
  }
  // A bare request gets the challenge; a paid one goes to the payment ledger.
  const outcome = await sellItem(deps, request, matchItem, {
    price: matchPrice(found.match, found.offer, deps.fee.recipient),
    resource: resourceOf(deps, found),
    order: { matchId: id },
    requestKey: `match:${id}`,
  })
  return { ok: true, outcome }
}

export type { Address }

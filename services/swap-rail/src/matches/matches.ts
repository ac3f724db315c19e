import {
  carriesPayment,
  charge,
  decodeBase64Json,
  PAYMENT_REQUIRED_HEADER,
  WWW_AUTHENTICATE_HEADER,
} from '@agents/payments'
import { and, eq, gt, isNull, lt, or, sql } from 'drizzle-orm'
import type { Address } from 'viem'
import { type MatchRow, matches, type OfferRow, offers } from '../db/schema.ts'
import type { SwapDeps } from '../deps.ts'
import type { Grant } from '../grants/grant-signer.ts'
import { formatUsd } from '../money.ts'
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

const resourceOf = ({ match, offer }: MatchWithOffer) => ({
  url: payPath(match.id),
  description: `Pay match ${match.id}: ${match.mtok} MTok of ${offer.model}`,
})

/** The live 402 of a match's pay route, decoded: what `swap_pay_challenge` and the match view show. */
export const payChallenge = async (deps: SwapDeps, found: MatchWithOffer) => {
  const url = new URL(payPath(found.match.id), deps.baseUrl()).href
  const result = await charge(deps.payments, new Request(url, { method: 'POST' }), {
    price: matchPrice(found.match, found.offer, deps.fee.recipient),
    resource: resourceOf(found),
  })
  if (result.paid) throw new Error('a bare request cannot be paid')
  const required = result.response.headers.get(PAYMENT_REQUIRED_HEADER)
  return {
    url,
    x402: required ? decodeBase64Json(required) : null,
    mpp: result.response.headers.get(WWW_AUTHENTICATE_HEADER),
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
export const matchView = async (deps: SwapDeps, found: MatchWithOffer, now = new Date()) => {
  const { match, offer } = found
  const { sellerNet, fee } = feeTerms(match.grossAtomic, match.feeBps)
  const until = redeemUntil(match, deps.windows.redemptionWindowHours)
  const grant = await freshGrant(deps, found, now)
  const payment = match.payment as { rail: string; network: string; transaction: string } | null
  // Past its window an unpaid match is expired already, whether or not the sweep has run,
  // unless a payment is being settled (the sweep leaves those alone too).
  const settling = match.settlingUntil !== null && match.settlingUntil > now
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

// The lease outlives any facilitator call (10 s by default) by a wide
// margin; the sweep never expires a match whose lease is live.
const LEASE_SECONDS = 60

/**
 * Pays a match. A bare request gets the 402. A paid request takes the
 * match's lease first (one conditional UPDATE), so a second payment racing
 * the first is refused before anything is settled; the payment itself is
 * verified, settled and made single-use by @agents/payments.
 */
export const payMatch = async (deps: SwapDeps, request: Request, id: string) => {
  const found = await getMatch(deps, id)
  if (!found) return { status: 404 as const, body: { error: 'no such match' } }
  if (found.match.status === 'paid')
    return {
      status: 409 as const,
      body: { error: 'match already paid', match: `/v1/matches/${id}` },
    }
  const expired = found.match.status === 'expired' || found.match.payBy.getTime() <= Date.now()
  if (expired)
    return {
      status: 410 as const,
      body: { error: 'payment window ended: post a new intent' },
    }
  const price = matchPrice(found.match, found.offer, deps.fee.recipient)
  const resource = resourceOf(found)
  if (!carriesPayment(request)) {
    const bare = await charge(deps.payments, request, { price, resource })
    if (bare.paid) throw new Error('a request without a payment credential was paid')
    return { response: bare.response }
  }

  const { db } = deps.database
  const [leased] = await db
    .update(matches)
    .set({ settlingUntil: sql`now() + make_interval(secs => ${LEASE_SECONDS})` })
    .where(
      and(
        eq(matches.id, id),
        eq(matches.status, 'awaiting_payment'),
        gt(matches.payBy, sql`now()`),
        or(isNull(matches.settlingUntil), lt(matches.settlingUntil, sql`now()`)),
      ),
    )
    .returning({ id: matches.id })
  if (!leased)
    return {
      status: 409 as const,
      body: { error: 'a payment for this match is already being settled' },
    }

  const result = await charge(deps.payments, request, { price, resource }).catch(
    async (error: unknown) => {
      await db.update(matches).set({ settlingUntil: null }).where(eq(matches.id, id))
      throw error
    },
  )
  if (!result.paid) {
    await db.update(matches).set({ settlingUntil: null }).where(eq(matches.id, id))
    return { response: result.response }
  }
  const [paid] = await db
    .update(matches)
    .set({ status: 'paid', paidAt: new Date(), settlingUntil: null, payment: result.receipt })
    .where(and(eq(matches.id, id), eq(matches.status, 'awaiting_payment')))
    .returning()
  if (!paid) {
    // Unreachable while the lease holds; logged loudly because money moved.
    deps.logger.error(
      { matchId: id, receipt: result.receipt },
      'payment settled for a closed match',
    )
    return { status: 409 as const, body: { error: 'match closed while the payment settled' } }
  }
  const view = await matchView(deps, { match: paid, offer: found.offer })
  return { response: result.withReceipt(Response.json(view, { status: 200 })) }
}

export type { Address }

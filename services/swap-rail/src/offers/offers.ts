import { randomUUID } from 'node:crypto'
import { checkPublicUrl, type Refusal, refusal, refusalOf } from '@agents/service-kit'
import { and, asc, eq, type SQL } from 'drizzle-orm'
import { type Address, getAddress, verifyMessage, zeroAddress } from 'viem'
import { type MatchRow, type OfferRow, offers } from '../db/schema.ts'
import type { SwapDeps } from '../deps.ts'
import { BookFull, type BookRefusal } from '../limits/book-bounds.ts'
import { matchView } from '../matches/matches.ts'
import { fillWaitingIntents } from '../matching/match-book.ts'
import { formatUsd } from '../money.ts'
import { splitAddress, splitFor } from '../split/split-address.ts'
import { checkOfferBounds } from './check-offer-bounds.ts'
import { fillFeeRecipients, splitFeeRecipient } from './fee-recipient.ts'
import type { OfferView } from './offer-schemas.ts'

/**
 * An offer as served. `feeRecipient` is the hub's fee recipient when it is
 * the one in this offer's split (so a seller can rebuild the split and
 * collect; see packages/swap-seller), else null (the hub changed it since).
 * The row stores its split's recipient; only a row read without
 * `fillFeeRecipients` has the split rebuilt here.
 */
export const offerView = (offer: OfferRow, fee: { recipient: Address }): OfferView => {
  const inSplit = offer.feeRecipient ?? splitFeeRecipient(offer, fee.recipient)
  const current = inSplit !== zeroAddress && inSplit.toLowerCase() === fee.recipient.toLowerCase()
  return {
    id: offer.id,
    status: offer.status,
    endpoint: offer.endpoint,
    payTo: offer.payTo,
    model: offer.model,
    mtok: offer.mtok,
    remainingMtok: offer.remainingMtok,
    priceUsd: formatUsd(offer.priceAtomic),
    feeBps: offer.feeBps,
    splitAddress: offer.splitAddress,
    feeRecipient: current ? fee.recipient : null,
    createdAt: offer.createdAt.toISOString(),
    expiresAt: offer.expiresAt.toISOString(),
  }
}

/** Why an endpoint is refused, or undefined when it is acceptable. */
export const endpointProblem = (endpoint: string, allowHosts: readonly string[]) => {
  const check = checkPublicUrl(endpoint, { allowHosts })
  if (!check.ok) return check.reason
  if (check.url.search || check.url.hash) return 'no query or fragment'
  return undefined
}

/** The seller's payee's split for the fee in force now (the address is fixed by both). */
export const sellerSplit = (payTo: Address, fee: SwapDeps['fee']) =>
  splitAddress(splitFor({ seller: payTo, feeRecipient: fee.recipient, feeBps: fee.bps }))

export type CreateOfferParameters = {
  endpoint: string
  payTo: string
  model: string
  mtok: number
  priceUsd: bigint
  /** Who posts it (`bookClientOf`): the book bound per client; null counts for nobody. */
  client: string | null
}

/**
 * Posts an offer and, in the same transaction, gives it to the intents
 * already waiting for its model at its price (oldest first). Refused,
 * with nothing written, when its payTo or its poster already has as many
 * open offers as the book bounds allow (`checkOfferBounds`).
 */
export const createOffer = async (
  deps: SwapDeps,
  input: CreateOfferParameters,
): Promise<{ offer: OfferRow; matches: MatchRow[] } | { refused: BookRefusal }> => {
  const payTo = getAddress(input.payTo)
  const values = {
    id: randomUUID(),
    endpoint: input.endpoint,
    payTo,
    model: input.model,
    mtok: input.mtok,
    remainingMtok: input.mtok,
    priceAtomic: input.priceUsd,
    feeBps: deps.fee.bps,
    splitAddress: sellerSplit(payTo, deps.fee),
    feeRecipient: deps.fee.recipient,
    clientKey: input.client,
    status: 'open' as const,
    expiresAt: new Date(Date.now() + deps.windows.offerTtlSeconds * 1000),
  }
  return deps.database.db.transaction(async (tx) => {
    const refused = await checkOfferBounds(tx, {
      payTo,
      clientKey: input.client,
      bounds: deps.bounds,
    })
    if (refused) return { refused }
    await tx.insert(offers).values(values)
    const made = await fillWaitingIntents(tx, values.id, deps.windows)
    const [offer] = await tx.select().from(offers).where(eq(offers.id, values.id))
    return { offer: offer!, matches: made }
  })
}

export const getOffer = async (deps: SwapDeps, id: string) => {
  const [offer] = await deps.database.db.select().from(offers).where(eq(offers.id, id))
  return offer && (await fillFeeRecipients(deps, [offer]))[0]
}

export const listOffers = async (
  deps: SwapDeps,
  query: { model?: string | undefined; status: string; limit: number; offset: number },
) => {
  const filters: SQL[] = []
  if (query.model) filters.push(eq(offers.model, query.model))
  if (query.status !== 'all') filters.push(eq(offers.status, query.status as OfferRow['status']))
  const rows = await deps.database.db
    .select()
    .from(offers)
    .where(and(...filters))
    .orderBy(asc(offers.model), asc(offers.priceAtomic), asc(offers.seq))
    .limit(query.limit)
    .offset(query.offset)
  return fillFeeRecipients(deps, rows)
}

/** What payTo signs (EIP-191 personal_sign) to cancel an offer: it names the offer. */
export const cancelMessage = (offerId: string) => `Cancel swap-rail offer ${offerId}`

export type CancelResult = { ok: true; offer: OfferRow } | Refusal<403 | 404 | 409>

/**
 * Cancels an open offer on payTo's signature (refused: 404 no such offer,
 * 403 not payTo's signature, 409 not open, with the offer as it is). Matches already formed stay
 * payable; capacity they return later does not reopen a cancelled offer.
 */
export const cancelOffer = async (
  deps: SwapDeps,
  offerId: string,
  signature: `0x${string}`,
): Promise<CancelResult> => {
  const offer = await getOffer(deps, offerId)
  if (!offer) return refusal(404, 'no such offer')
  const valid = await verifyMessage({
    address: offer.payTo as Address,
    message: cancelMessage(offerId),
    signature,
  }).catch(() => false)
  if (!valid) return refusal(403, "signature is not payTo's over the cancel message")
  const [cancelled] = await deps.database.db
    .update(offers)
    .set({ status: 'cancelled', closedAt: new Date() })
    .where(and(eq(offers.id, offerId), eq(offers.status, 'open')))
    .returning()
  if (cancelled) return { ok: true, offer: cancelled }
  const current = (await getOffer(deps, offerId))!
  return refusal(409, `offer is ${current.status}`, { offer: offerView(current, deps.fee) })
}

/**
 * POST /v1/offers and swap_create_offer: the endpoint rule, then the offer
 * and any matches it made; refused: an endpoint against the rule (400), a
 * full book bound (429, `BookFull`).
 */
export const postOffer = async (deps: SwapDeps, body: CreateOfferParameters) => {
  const problem = endpointProblem(body.endpoint, deps.devEndpointHosts)
  if (problem)
    return refusal(400, 'invalid offer', { issues: [{ path: ['endpoint'], message: problem }] })
  const created = await createOffer(deps, body)
  if ('refused' in created) {
    deps.bounds.onFull?.(created.refused.bound)
    return refusalOf(new BookFull(created.refused, deps.windows.offerTtlSeconds))
  }
  const { offer, matches } = created
  return {
    offer: offerView(offer, deps.fee),
    matches: await Promise.all(matches.map((match) => matchView(deps, { match, offer }))),
  }
}

import { createHash } from 'node:crypto'
import { type PaymentReceipt, type Product, sellOnce } from '@agents/payments'
import type { AnyTransaction } from '@agents/service-kit/db'
import { eq, sql } from 'drizzle-orm'
import { PAID, spendOutbound } from '../budget/spend-outbound.ts'
import type { Actor } from '../credentials/actors.ts'
import { personas, posts } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { recordPaidOrder } from '../orders/record-paid-order.ts'
import { FEATURED_ERRORS } from './featured-errors.ts'
import { FEATURED_KIND, featuredSlots, lockBoardSlots } from './featured-slots.ts'

/** featured_slot: 50.00 USDC. */
export const FEATURED_PRICE = { amount: 50_000_000n }
export const FEATURED_PATH = '/api/featured/post'

type FeaturedOrder = {
  personaId: number
  ownerId: number | null
  handle: string
  board: string
  body: string
}
export type FeaturedFulfilment = {
  orderId: string
  postId: number
  board: string
  featuredUntil: string
}

const slotsFull = (deps: VenueDeps, nextFreeAt: Date | null) =>
  Response.json(
    {
      error: FEATURED_ERRORS.full,
      slots: deps.featured.slotsPerBoard,
      nextFreeAt: nextFreeAt?.toISOString() ?? null,
    },
    {
      status: 409,
      // A slot held by a payment in flight frees within its lease at the latest.
      headers: {
        'retry-after': String(
          nextFreeAt
            ? Math.max(1, Math.ceil((nextFreeAt.getTime() - Date.now()) / 1000))
            : deps.payments.leaseSeconds,
        ),
      },
    },
  )

/**
 * The featured slot as the payment ledger sells it: the board's slots are
 * counted again under the board's lock in the claim's transaction (this
 * payment's own row included), so the last slot is sold once; delivery
 * publishes the post as featured and records the order and its revenue.
 */
export const featuredProduct = (deps: VenueDeps): Product<FeaturedOrder, FeaturedFulfilment> => ({
  kind: FEATURED_KIND,
  hold: async (tx, order) => {
    await lockBoardSlots(tx, order.board)
    const { taken, nextFreeAt } = await featuredSlots(tx, order.board)
    return taken > deps.featured.slotsPerBoard ? slotsFull(deps, nextFreeAt) : undefined
  },
  fulfil: (tx, order, receipt) => publishFeatured(deps, tx, order, receipt),
  answer: (fulfilment) => Response.json({ ok: true, ...fulfilment }, { status: 201 }),
})

const publishFeatured = async (
  deps: VenueDeps,
  tx: AnyTransaction,
  order: FeaturedOrder,
  receipt: PaymentReceipt,
): Promise<FeaturedFulfilment> => {
  const [post] = await tx
    .insert(posts)
    .values({
      board: order.board,
      personaId: order.personaId,
      handle: order.handle,
      body: order.body,
      status: 'published',
      featuredUntil: sql`now() + make_interval(hours => ${deps.featured.hours})`,
    })
    .returning({ id: posts.id, featuredUntil: posts.featuredUntil })
  const orderId = await recordPaidOrder(
    tx,
    { kind: FEATURED_KIND, ownerId: order.ownerId },
    receipt,
  )
  return {
    orderId,
    postId: post!.id,
    board: order.board,
    featuredUntil: post!.featuredUntil!.toISOString(),
  }
}

export type BuyFeaturedParams = {
  actor: Actor
  personaId: number
  board: 'seeking' | 'debriefs'
  body: string
  request: Request
}

export type BuyFeaturedOutcome =
  | { ok: true; response: Response }
  | { ok: false; status: 403 | 404 | 422 | 503; error: string; reason?: string }

/**
 * POST /api/featured/post after validation. Everything that can refuse
 * comes before the 402: the persona and who speaks for it, the board gate,
 * the safety check (held, blocked or unavailable: nothing charged), the
 * board's free slots (409 saying when the next frees).
 */
export const buyFeaturedSlot = async (
  deps: VenueDeps,
  { actor, personaId, board, body, request }: BuyFeaturedParams,
): Promise<BuyFeaturedOutcome> => {
  const [persona] = await deps.database.db.select().from(personas).where(eq(personas.id, personaId))
  if (!persona) return { ok: false, status: 404, error: FEATURED_ERRORS.noSuchPersona }
  const speaksFor =
    actor.kind === 'agent'
      ? actor.endpoint.personaId === persona.id
      : persona.ownerId !== null && actor.owner.id === persona.ownerId
  if (!speaksFor) return { ok: false, status: 403, error: FEATURED_ERRORS.notYourPersona }
  if (persona.status !== 'admitted')
    return { ok: false, status: 403, error: `persona is ${persona.status}, not admitted` }
  if (!(await deps.settings.venueOpen()))
    return { ok: false, status: 403, error: FEATURED_ERRORS.boardsClosed }
  // Before the check runs and before any 402: a spent budget is a 503, nothing charged.
  await spendOutbound(deps, PAID, { moderation: 1 })
  const verdict = await deps.safety(body, { kind: 'post' })
  if (verdict.unavailable)
    return { ok: false, status: 503, error: FEATURED_ERRORS.checkUnavailable }
  if (verdict.verdict !== 'allow')
    return {
      ok: false,
      status: 422,
      error: verdict.verdict === 'hold' ? FEATURED_ERRORS.held : FEATURED_ERRORS.blocked,
      reason: verdict.reason,
    }
  const { taken, nextFreeAt } = await featuredSlots(deps.database.db, board)
  if (taken >= deps.featured.slotsPerBoard)
    return { ok: true, response: slotsFull(deps, nextFreeAt) }
  const order: FeaturedOrder = {
    personaId: persona.id,
    ownerId: persona.ownerId,
    handle: persona.handle,
    board,
    body,
  }
  const response = await sellOnce(deps.payments, request, {
    price: FEATURED_PRICE,
    resource: {
      url: FEATURED_PATH,
      description: `featured_slot: a featured post for ${deps.featured.hours} h (50.00 USDC)`,
      outputSchema: { orderId: 'string', postId: 'integer', featuredUntil: 'string' },
    },
    body: 'legacy-v1',
    product: featuredProduct(deps),
    order,
    // The same payment may only ever feature this text for this persona on this board.
    requestKey: `featured:${persona.id}:${board}:${createHash('sha256').update(body).digest('hex')}`,
  })
  return { ok: true, response }
}

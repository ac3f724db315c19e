import { definePaidItem, type PaymentReceipt } from '@agents/payments'
import { type Refusal, refusal } from '@agents/service-kit'
import type { AnyTransaction } from '@agents/service-kit/db'
import { sql } from 'drizzle-orm'
import { posts } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { priceOf } from '../orders/paid-item-text.ts'
import { recordPaidOrder } from '../orders/record-paid-order.ts'
import { FEATURED_ERRORS } from './featured-errors.ts'
import { FEATURED_KIND, featuredSlots, lockBoardSlots } from './featured-slots.ts'

const PRICE = { amount: 50_000_000n }
export const FEATURED_PATH = '/api/featured/post'

export type FeaturedOrder = {
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

/** The 402's description of a featured slot, for the configured hours. */
export const featuredDescription = (hours: number) =>
  `featured_slot: a featured post for ${hours} h (${priceOf(PRICE.amount)})`

/** Every slot of the board taken: 409, with when the next one frees (Retry-After). */
export const slotsFull = (
  deps: Pick<VenueDeps, 'featured' | 'payments'>,
  nextFreeAt: Date | null,
): Refusal<409> =>
  refusal(
    409,
    FEATURED_ERRORS.full,
    { slots: deps.featured.slotsPerBoard, nextFreeAt: nextFreeAt?.toISOString() ?? null },
    // A slot held by a payment in flight frees within its lease at the latest.
    {
      'retry-after': String(
        nextFreeAt
          ? Math.max(1, Math.ceil((nextFreeAt.getTime() - Date.now()) / 1000))
          : deps.payments.leaseSeconds,
      ),
    },
  )

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

/**
 * The featured slot: the board's slots are counted again under the board's
 * lock in the claim's transaction (this payment's own row included), so the
 * last slot is sold once; delivery publishes the post as featured and
 * records the order and its revenue. Nothing to release: a failed payment's
 * row stops counting as a slot in flight.
 */
export const featuredItem = definePaidItem({
  kind: FEATURED_KIND,
  method: 'post',
  path: FEATURED_PATH,
  price: PRICE,
  body: 'legacy-v1',
  what: "a persona's post featured first on its board and the floor",
  // Each sale says its hours (`featuredDescription`).
  description: `featured_slot: a featured post (${priceOf(PRICE.amount)})`,
  outputSchema: { orderId: 'string', postId: 'integer', featuredUntil: 'string' },
  product: (deps: VenueDeps) => ({
    hold: async (tx, order: FeaturedOrder) => {
      await lockBoardSlots(tx, order.board)
      const { taken, nextFreeAt } = await featuredSlots(tx, order.board)
      return taken > deps.featured.slotsPerBoard ? slotsFull(deps, nextFreeAt) : undefined
    },
    fulfil: (tx, order, receipt) => publishFeatured(deps, tx, order, receipt),
  }),
})

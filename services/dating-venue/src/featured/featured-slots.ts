import { paymentLedger } from '@agents/payments'
import type { AnyTransaction } from '@agents/service-kit/db'
import { and, eq, gt, inArray, isNull, min, or, sql } from 'drizzle-orm'
import type { VenueDatabase } from '../db/open.ts'
import { posts } from '../db/schema.ts'

export const FEATURED_KIND = 'featured_slot'

type Executor = AnyTransaction | VenueDatabase['db']

/**
 * How a board's featured slots stand: live featured posts (published and
 * not expired; a post a report holds frees its slot) plus payments for the
 * board still in flight (claimed, settling, unknown, or settled and not yet
 * delivered), and when the earliest live one ends.
 */
export const featuredSlots = async (db: Executor, board: string) => {
  const [live] = await db
    .select({ count: sql<number>`count(*)::int`, nextFreeAt: min(posts.featuredUntil) })
    .from(posts)
    .where(
      and(
        eq(posts.board, board),
        eq(posts.status, 'published'),
        gt(posts.featuredUntil, sql`now()`),
      ),
    )
  const [inFlight] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(paymentLedger)
    .where(
      and(
        eq(paymentLedger.kind, FEATURED_KIND),
        sql`${paymentLedger.order}->>'board' = ${board}`,
        or(
          inArray(paymentLedger.state, ['claimed', 'settling', 'unknown']),
          and(eq(paymentLedger.state, 'settled'), isNull(paymentLedger.fulfilment)),
        ),
      ),
    )
  return {
    taken: (live?.count ?? 0) + (inFlight?.count ?? 0),
    nextFreeAt: live?.nextFreeAt ?? null,
  }
}

/**
 * Serialises the slot decisions of one board across replicas for the rest
 * of the transaction (the payment's claim): the count and the claim commit
 * together, so two payers cannot both take the last slot.
 */
export const lockBoardSlots = (tx: AnyTransaction, board: string) =>
  tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`featured:${board}`}))`)

import { rowsOf } from '@agents/service-kit/db'
import { and, eq, sql } from 'drizzle-orm'
import type { VenueDatabase } from '../db/open.ts'
import { chatUsage } from '../db/schema.ts'
import { grantCredits } from '../orders/credits.ts'
import { utcDay } from './free-messages.ts'

/**
 * What one answer costs in chat credits once the day's free messages are
 * used. The spec gives 25 credits per 1 USDC and 15 messages per 2.00 USDC
 * top-up without relating them: a message is 3 credits, so a top-up's 50
 * credits cover its 15 messages (with 5 to spare) and a 5.00 USDC refund
 * (125 credits) buys 41.
 */
export const CREDITS_PER_MESSAGE = 3

/** What paid for one message: a free one of `day`, or credits. */
export type Reservation =
  | { kind: 'free'; day: string; used: number }
  | { kind: 'credit'; credits: number; balance: number }

// $1 wallet, $2 day, $3 free messages a day, $4 the credits' owner (lowercase), $5 credits a message.
const RESERVE = `
    WITH free AS (
      INSERT INTO chat_usage (wallet, day, used)
      SELECT $1::text, $2::text, 1 WHERE $3::int > 0
      ON CONFLICT (wallet, day) DO UPDATE SET used = chat_usage.used + 1
      WHERE chat_usage.used < $3::int
      RETURNING used
    ), spent AS (
      UPDATE credit_balances SET credits = credits - $5::int
      WHERE wallet = $4::text AND credits >= $5::int
        AND NOT EXISTS (SELECT 1 FROM free)
      RETURNING credits
    ), spent_event AS (
      INSERT INTO credit_events (wallet, credits, reason)
      SELECT $4::text, -$5::int, 'chat message' FROM spent
    )
    SELECT (SELECT used FROM free) AS used, (SELECT credits FROM spent) AS balance`

/**
 * Takes one message for `wallet` in ONE statement (one round trip, one
 * commit): a free one of today while the tier allows, else 3 credits, else
 * nothing (the caller asks for payment). Both are conditional writes, so
 * parallel asks never overspend: the usage row's upsert only counts below
 * the allowance, and the balance's UPDATE re-checks `credits >= 3` after
 * waiting for a concurrent spend. The credit event is written by the same
 * statement, so the balance never moves without its event.
 */
export const reserveMessage = async (
  database: VenueDatabase,
  { wallet, freePerDay, now = new Date() }: { wallet: string; freePerDay: number; now?: Date },
): Promise<Reservation | undefined> => {
  const day = utcDay(now)
  const owner = wallet.toLowerCase()
  const result = await database.client.query(RESERVE, [
    wallet,
    day,
    freePerDay,
    owner,
    CREDITS_PER_MESSAGE,
  ])
  const [row] = rowsOf<{ used: number | null; balance: number | null }>(result)
  if (row?.used != null) return { kind: 'free', day, used: row.used }
  if (row?.balance != null)
    return { kind: 'credit', credits: CREDITS_PER_MESSAGE, balance: row.balance }
  return undefined
}

/** Gives a reserved message back: the venue failed to answer (its own infrastructure). */
export const releaseMessage = async (
  db: VenueDatabase['db'],
  wallet: string,
  reservation: Reservation,
) => {
  if (reservation.kind === 'free')
    await db
      .update(chatUsage)
      .set({ used: sql`greatest(${chatUsage.used} - 1, 0)` })
      .where(and(eq(chatUsage.wallet, wallet), eq(chatUsage.day, reservation.day)))
  else await grantCredits(db, wallet, reservation.credits, 'chat message not answered')
}

/** Free messages `wallet` used today. */
export const usedToday = async (database: VenueDatabase, wallet: string, now = new Date()) => {
  const [row] = await database.db
    .select({ used: chatUsage.used })
    .from(chatUsage)
    .where(and(eq(chatUsage.wallet, wallet), eq(chatUsage.day, utcDay(now))))
  return row?.used ?? 0
}

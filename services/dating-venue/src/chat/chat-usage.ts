import { and, eq, sql } from 'drizzle-orm'
import type { VenueDatabase } from '../db/open.ts'
import { chatUsage } from '../db/schema.ts'
import { grantCredits, spendCredits } from '../orders/credits.ts'
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

/**
 * Takes one message for `wallet`: a free one of today while the tier
 * allows (one conditional statement, so parallel asks never overspend), else
 * credits (under the wallet's lock), else nothing (the caller asks for
 * payment).
 */
export const reserveMessage = async (
  database: VenueDatabase,
  { wallet, freePerDay, now = new Date() }: { wallet: string; freePerDay: number; now?: Date },
): Promise<Reservation | undefined> => {
  const day = utcDay(now)
  if (freePerDay > 0) {
    const taken = await database.db
      .insert(chatUsage)
      .values({ wallet, day, used: 1 })
      .onConflictDoUpdate({
        target: [chatUsage.wallet, chatUsage.day],
        set: { used: sql`${chatUsage.used} + 1` },
        setWhere: sql`${chatUsage.used} < ${freePerDay}`,
      })
      .returning({ used: chatUsage.used })
    if (taken.length > 0) return { kind: 'free', day, used: taken[0]!.used }
  }
  const balance = await spendCredits(database.db, wallet, CREDITS_PER_MESSAGE, 'chat message')
  return balance === undefined
    ? undefined
    : { kind: 'credit', credits: CREDITS_PER_MESSAGE, balance }
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

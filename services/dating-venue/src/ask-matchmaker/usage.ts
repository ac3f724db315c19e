import { pgArray, rowsOf } from '@agents/service-kit/db'
import { and, eq, sql } from 'drizzle-orm'
import { coalesce, coalescedPer } from '../db/coalesce.ts'
import type { VenueDatabase } from '../db/open.ts'
import { chatUsage } from '../db/schema.ts'
import { utcDay } from '../holdings/free-messages.ts'
import { CREDITS_PER_MESSAGE, grantCredits } from '../orders/credits.ts'

/** What paid for one message: a free one of `day`, or credits. */
export type Reservation =
  | { kind: 'free'; day: string; used: number; balance: number }
  | { kind: 'credit'; credits: number; balance: number }

// $1 wallets, $2 days, $3 free messages a day each, $4 credits a message.
// The credits' owner is the lowercase wallet. At most one row per owner.
// `held`: the balance as the statement found it, untouched when a free message paid.
const RESERVE = `
    WITH asked AS (
      SELECT a.wallet, a.day, a.allowance, lower(a.wallet) AS owner
      FROM unnest($1::text[], $2::text[], $3::int[]) AS a(wallet, day, allowance)
    ), free AS (
      INSERT INTO chat_usage AS usage (wallet, day, used)
      SELECT wallet, day, 1 FROM asked WHERE allowance > 0
      ON CONFLICT (wallet, day) DO UPDATE SET used = usage.used + 1
      WHERE usage.used < (
        SELECT asked.allowance FROM asked
        WHERE asked.wallet = usage.wallet AND asked.day = usage.day
      )
      RETURNING wallet, used
    ), spent AS (
      UPDATE credit_balances AS balance SET credits = balance.credits - $4::int
      FROM asked
      WHERE balance.wallet = asked.owner AND balance.credits >= $4::int
        AND NOT EXISTS (SELECT 1 FROM free WHERE free.wallet = asked.wallet)
      RETURNING asked.wallet, asked.owner, balance.credits
    ), spent_event AS (
      INSERT INTO credit_events (wallet, credits, reason)
      SELECT owner, -$4::int, 'chat message' FROM spent
    )
    SELECT asked.wallet, free.used, spent.credits AS balance, coalesce(held.credits, 0) AS held
    FROM asked
    LEFT JOIN free ON free.wallet = asked.wallet
    LEFT JOIN spent ON spent.wallet = asked.wallet
    LEFT JOIN credit_balances AS held ON held.wallet = asked.owner`

type Ask = { wallet: string; day: string; freePerDay: number }
type Reserved = { wallet: string; used: number | null; balance: number | null; held: number }

/**
 * Splits asks into rounds in which each owner appears once (one statement
 * may move a balance row once), keeping each owner's asks in arrival order.
 */
const roundsByOwner = (asks: Ask[]) => {
  const rounds: Ask[][] = []
  const seen = new Map<string, number>()
  for (const ask of asks) {
    const owner = ask.wallet.toLowerCase()
    const round = seen.get(owner) ?? 0
    seen.set(owner, round + 1)
    if (round === rounds.length) rounds.push([])
    rounds[round]!.push(ask)
  }
  return rounds
}

// Concurrent answers' reservations in one statement (coalesce): each row's
// writes stay conditional, so a batch spends exactly what single statements would.
const reserveMessages = coalescedPer((database: VenueDatabase) =>
  coalesce(async (asks: Ask[]) => {
    const reserved = new Map<Ask, Reserved>()
    for (const round of roundsByOwner(asks)) {
      const result = await database.client.query(RESERVE, [
        pgArray(round.map((ask) => ask.wallet)),
        pgArray(round.map((ask) => ask.day)),
        pgArray(round.map((ask) => ask.freePerDay)),
        CREDITS_PER_MESSAGE,
      ])
      const rows = new Map(rowsOf<Reserved>(result).map((row) => [row.wallet, row]))
      for (const ask of round) reserved.set(ask, rows.get(ask.wallet)!)
    }
    return asks.map((ask) => reserved.get(ask))
  }),
)

/**
 * Takes one message for `wallet`: a free one of today while the tier
 * allows, else 3 credits, else nothing (the caller asks for payment), in
 * one statement with the reservations of concurrent answers (one round
 * trip, one commit). Both are conditional writes, so parallel asks never
 * overspend: the usage row's upsert only counts below the allowance, and
 * the balance's UPDATE re-checks `credits >= 3` after waiting for a
 * concurrent spend. The credit event is written by the same statement, so
 * the balance never moves without its event.
 */
export const reserveMessage = async (
  database: VenueDatabase,
  { wallet, freePerDay, now = new Date() }: { wallet: string; freePerDay: number; now?: Date },
): Promise<Reservation | undefined> => {
  const day = utcDay(now)
  const row = await reserveMessages(database)({ wallet, day, freePerDay })
  if (row?.used != null) return { kind: 'free', day, used: row.used, balance: row.held }
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

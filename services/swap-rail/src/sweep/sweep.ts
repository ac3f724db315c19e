import { rowsOf, runExclusive } from '@agents/service-kit/db'
import { sql } from 'drizzle-orm'
import type { SwapDatabase } from '../db/open.ts'
import { matchableIntentIds, matchOpenIntent, type Windows } from '../matching/match-book.ts'

// Every replica runs the sweep on a timer; this lock lets exactly one do the work.
const SWEEP_LOCK = 7_246_003

export type SweepResult =
  | { ran: false }
  | {
      ran: true
      expiredMatches: number
      expiredOffers: number
      expiredIntents: number
      rematched: number
    }

const count = (result: unknown) => rowsOf<{ n: number | string }>(result)[0]?.n

/**
 * Ends what has run out of time: unpaid matches past their payment window
 * give their capacity back to the offer (reopening it if the match had
 * filled it), then offers and intents past their TTL expire. A match whose
 * payment is being settled (held until the payment ledger resolves it) is left alone. Afterwards, intents
 * that an open offer could serve (left open by a skipped lock or by
 * capacity just returned) are matched.
 */
export const sweep = async (
  { db }: SwapDatabase,
  windows: Windows,
  { rematchLimit = 200 } = {},
): Promise<SweepResult> => {
  const expired = await runExclusive(db, SWEEP_LOCK, async (tx) => {
    const matches = await tx.execute(sql`
      WITH expired AS (
        UPDATE swap_matches SET status = 'expired'
        WHERE status = 'awaiting_payment' AND pay_by < now()
          AND settling_reference IS NULL
        RETURNING offer_id, mtok
      ), returned AS (
        SELECT offer_id, sum(mtok)::int AS mtok FROM expired GROUP BY offer_id
      ), reopened AS (
        UPDATE swap_offers o SET
          remaining_mtok = o.remaining_mtok + r.mtok,
          status = CASE WHEN o.status = 'filled' AND o.expires_at > now() THEN 'open' ELSE o.status END,
          closed_at = CASE WHEN o.status = 'filled' AND o.expires_at > now() THEN NULL ELSE o.closed_at END
        FROM returned r WHERE o.id = r.offer_id
        RETURNING o.id
      )
      SELECT (SELECT count(*) FROM expired) AS n`)
    const offers = await tx.execute(sql`
      WITH expired AS (
        UPDATE swap_offers SET status = 'expired', closed_at = now()
        WHERE status = 'open' AND expires_at <= now() RETURNING id
      ) SELECT count(*) AS n FROM expired`)
    const intents = await tx.execute(sql`
      WITH expired AS (
        UPDATE swap_intents SET status = 'expired'
        WHERE status = 'open' AND expires_at <= now() RETURNING id
      ) SELECT count(*) AS n FROM expired`)
    return {
      expiredMatches: Number(count(matches)),
      expiredOffers: Number(count(offers)),
      expiredIntents: Number(count(intents)),
    }
  })
  if (!expired.ran) return { ran: false }
  let rematched = 0
  for (const intentId of await matchableIntentIds(db, rematchLimit)) {
    if (await matchOpenIntent(db, intentId, windows, { wait: true })) rematched++
  }
  return { ran: true, ...expired.value, rematched }
}

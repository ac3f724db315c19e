import { randomUUID } from 'node:crypto'
import { rowsOf } from '@agents/service-kit/db'
import { type SQL, sql } from 'drizzle-orm'
import type { IntentRow, MatchRow, OfferRow } from '../db/schema.ts'
import { intentFromRaw, matchFromRaw, offerFromRaw } from './rows.ts'

/** A drizzle database or transaction: all the matcher needs is to run SQL. */
export type Executor = { execute: (query: SQL) => PromiseLike<unknown> }

export type Windows = {
  /** Seconds an intent waits for an offer. */
  intentTtlSeconds: number
  /** Seconds a match waits for its payment before its capacity returns. */
  paymentWindowSeconds: number
}

type Raw = Record<string, unknown>
// The three statements below each form a match in ONE SQL statement: the
// offer's capacity is taken by a conditional UPDATE of a row locked with
// FOR UPDATE, the intent is claimed in the same statement, and the unique
// index on swap_matches.intent_id is the last word. Nothing is read into
// JavaScript and written back, so no interleaving of replicas can oversell
// an offer or match an intent twice. One statement is also one round trip.

/** The offer UPDATE shared by all three: take `mtok`, close the offer when it is used up. */
const takeCapacity = (mtok: SQL) => sql`
  remaining_mtok = o.remaining_mtok - ${mtok},
  status = CASE WHEN o.remaining_mtok = ${mtok} THEN 'filled' ELSE 'open' END,
  closed_at = CASE WHEN o.remaining_mtok = ${mtok} THEN now() ELSE NULL END`

const insertMatch = (matchId: string, windows: Windows, from: SQL) => sql`
  INSERT INTO swap_matches (id, intent_id, offer_id, mtok, unit_price_atomic, gross_atomic,
                            fee_bps, split_address, status, pay_by, client_key)
  SELECT ${matchId}::uuid, i.id, t.id, i.mtok, t.price_atomic, t.price_atomic * i.mtok,
         t.fee_bps, t.split_address, 'awaiting_payment',
         now() + make_interval(secs => ${windows.paymentWindowSeconds}::float8), i.client_key
  ${from}
  RETURNING *`

export type NewIntent = {
  model: string
  mtok: number
  maxPriceAtomic: bigint
  buyer: string | null
  /** Who files it (limits/book-client.ts): its open intents and unpaid matches are bounded. */
  clientKey: string | null
}

export type FileIntentReturnType =
  | { intent: IntentRow; match: MatchRow | null; offer: OfferRow | null }
  /** The client already holds `bound` intents waiting or matched and unpaid: nothing was filed. */
  | { refused: true }

/**
 * The client's intents that hold a place in the book, counted up to `bound`:
 * waiting ones and those whose match awaits payment (holding an offer's
 * capacity). Only sound under the client's advisory lock (`lockClient`).
 */
const underBound = (clientKey: string, bound: number) => sql`(
  (SELECT count(*) FROM (SELECT 1 FROM swap_intents
     WHERE client_key = ${clientKey} AND status = 'open' AND expires_at > now()
     LIMIT ${bound}::int) waiting)
  + (SELECT count(*) FROM (SELECT 1 FROM swap_matches
     WHERE client_key = ${clientKey} AND status = 'awaiting_payment' AND pay_by > now()
     LIMIT ${bound}::int) unpaid)
  < ${bound}::int)`

/**
 * Files an intent and matches it at once with the cheapest open offer of
 * its model that has the capacity and a price within the limit (then the
 * oldest). Offers locked by a concurrent matcher are skipped rather than
 * waited for; `matchOpenIntent` retries an intent left open that way.
 * With `bound`, the same statement files nothing (and takes no capacity)
 * when the client already holds that many intents (`underBound`); the
 * caller holds the client's advisory lock in the same transaction.
 */
export const fileIntent = async (
  db: Executor,
  intent: NewIntent,
  windows: Windows,
  { bound }: { bound?: number | undefined } = {},
): Promise<FileIntentReturnType> => {
  const mtok = sql`${intent.mtok}::int`
  const allowed =
    bound !== undefined && intent.clientKey !== null ? sql`(SELECT ok FROM gate)` : sql`true`
  const gate =
    bound !== undefined && intent.clientKey !== null
      ? sql`gate AS (SELECT ${underBound(intent.clientKey, bound)} AS ok), `
      : sql``
  const result = await db.execute(sql`
    WITH ${gate}picked AS (
      SELECT id FROM swap_offers
      WHERE model = ${intent.model} AND status = 'open' AND remaining_mtok >= ${mtok}
        AND price_atomic <= ${intent.maxPriceAtomic.toString()}::bigint AND expires_at > now()
        AND ${allowed}
      ORDER BY price_atomic, seq
      LIMIT 1
      FOR UPDATE SKIP LOCKED
    ), taken AS (
      UPDATE swap_offers o SET ${takeCapacity(mtok)}
      FROM picked WHERE o.id = picked.id
      RETURNING o.*
    ), filed AS (
      INSERT INTO swap_intents (id, model, mtok, max_price_atomic, buyer, status, expires_at,
                                client_key)
      SELECT ${randomUUID()}::uuid, ${intent.model}, ${mtok},
             ${intent.maxPriceAtomic.toString()}::bigint, ${intent.buyer}::text,
             CASE WHEN EXISTS (SELECT 1 FROM taken) THEN 'matched' ELSE 'open' END,
             now() + make_interval(secs => ${windows.intentTtlSeconds}::float8),
             ${intent.clientKey}::text
      WHERE ${allowed}
      RETURNING *
    ), made AS (${insertMatch(randomUUID(), windows, sql`FROM taken t, filed i`)})
    SELECT (SELECT row_to_json(filed) FROM filed) AS intent,
           (SELECT row_to_json(made) FROM made) AS match,
           (SELECT row_to_json(taken) FROM taken) AS offer`)
  const [row] = rowsOf<Raw>(result)
  if (!row?.intent) return { refused: true }
  return {
    intent: intentFromRaw(row.intent as Raw),
    match: row.match ? matchFromRaw(row.match as Raw) : null,
    offer: row.offer ? offerFromRaw(row.offer as Raw) : null,
  }
}

/**
 * Matches an intent that is still open (left open by a skipped lock, or
 * swept later). With `wait`, the offer lock is waited for instead of skipped.
 */
export const matchOpenIntent = async (
  db: Executor,
  intentId: string,
  windows: Windows,
  { wait = false } = {},
): Promise<MatchRow | null> => {
  const result = await db.execute(sql`
    WITH intent AS (
      SELECT * FROM swap_intents
      WHERE id = ${intentId}::uuid AND status = 'open' AND expires_at > now()
      FOR UPDATE SKIP LOCKED
    ), picked AS (
      SELECT o.id FROM swap_offers o, intent i
      WHERE o.model = i.model AND o.status = 'open' AND o.remaining_mtok >= i.mtok
        AND o.price_atomic <= i.max_price_atomic AND o.expires_at > now()
      ORDER BY o.price_atomic, o.seq
      LIMIT 1
      FOR UPDATE OF o ${wait ? sql`` : sql`SKIP LOCKED`}
    ), taken AS (
      UPDATE swap_offers o SET ${takeCapacity(sql`i.mtok`)}
      FROM picked, intent i WHERE o.id = picked.id AND o.remaining_mtok >= i.mtok
      RETURNING o.*
    ), claimed AS (
      UPDATE swap_intents i SET status = 'matched'
      FROM taken WHERE i.id = ${intentId}::uuid AND i.status = 'open'
      RETURNING i.*
    ), made AS (${insertMatch(randomUUID(), windows, sql`FROM taken t, claimed i`)})
    SELECT (SELECT row_to_json(made) FROM made) AS match`)
  const [row] = rowsOf<Raw>(result)
  return row?.match ? matchFromRaw(row.match as Raw) : null
}

/**
 * Gives a new offer to the intents waiting for its model and price, oldest
 * first, while its capacity lasts. Runs in the offer's own transaction.
 */
export const fillWaitingIntents = async (
  db: Executor,
  offerId: string,
  windows: Windows,
  { limit = 1000 } = {},
): Promise<MatchRow[]> => {
  const made: MatchRow[] = []
  while (made.length < limit) {
    const result = await db.execute(sql`
      WITH offer AS (
        SELECT * FROM swap_offers WHERE id = ${offerId}::uuid AND status = 'open'
      ), picked AS (
        SELECT i.id, i.mtok FROM swap_intents i, offer o
        WHERE i.model = o.model AND i.status = 'open' AND i.expires_at > now()
          AND i.max_price_atomic >= o.price_atomic AND i.mtok <= o.remaining_mtok
        ORDER BY i.seq
        LIMIT 1
        FOR UPDATE OF i SKIP LOCKED
      ), taken AS (
        UPDATE swap_offers o SET ${takeCapacity(sql`picked.mtok`)}
        FROM picked WHERE o.id = ${offerId}::uuid AND o.remaining_mtok >= picked.mtok
        RETURNING o.*
      ), claimed AS (
        UPDATE swap_intents i SET status = 'matched'
        FROM picked, taken WHERE i.id = picked.id AND i.status = 'open'
        RETURNING i.*
      ), made AS (${insertMatch(randomUUID(), windows, sql`FROM taken t, claimed i`)})
      SELECT (SELECT row_to_json(made) FROM made) AS match`)
    const [row] = rowsOf<Raw>(result)
    if (!row?.match) break
    made.push(matchFromRaw(row.match as Raw))
  }
  return made
}

/** Open intents that some open offer could serve now: what the sweep retries. */
export const matchableIntentIds = async (db: Executor, limit: number): Promise<string[]> => {
  const result = await db.execute(sql`
    SELECT i.id FROM swap_intents i
    WHERE i.status = 'open' AND i.expires_at > now() AND EXISTS (
      SELECT 1 FROM swap_offers o
      WHERE o.model = i.model AND o.status = 'open' AND o.remaining_mtok >= i.mtok
        AND o.price_atomic <= i.max_price_atomic AND o.expires_at > now())
    ORDER BY i.seq
    LIMIT ${limit}::int`)
  return rowsOf<Raw>(result).map((row) => row.id as string)
}

import { rowsOf } from '@agents/service-kit/db'
import { type SQL, sql } from 'drizzle-orm'
import type { BookBoundName, BookBounds, BookRefusal } from '../limits/book-bounds.ts'
import { BOOK_LOCKS, lockBook } from '../limits/lock-book.ts'
import type { Executor } from '../matching/match-book.ts'

type Check = { bound: BookBoundName; max: number; lock: number; key: string; rows: SQL }

const openOffers = (column: SQL, key: string) =>
  sql`FROM swap_offers WHERE ${column} = ${key} AND status = 'open' AND expires_at > now()`

/**
 * Whether one more open offer fits the book bounds: open offers of its payTo
 * and of its poster, each counted (up to the bound) under that key's
 * advisory lock, in the transaction that then inserts the offer. Answers
 * the refusal, with the seconds until the soonest counted offer expires.
 */
export const checkOfferBounds = async (
  tx: Executor,
  { payTo, clientKey, bounds }: { payTo: string; clientKey: string | null; bounds: BookBounds },
): Promise<BookRefusal | undefined> => {
  const checks: Check[] = []
  if (bounds.offersPerSeller !== undefined)
    checks.push({
      bound: 'open-offers-per-seller',
      max: bounds.offersPerSeller,
      lock: BOOK_LOCKS.offersOfSeller,
      key: payTo,
      rows: openOffers(sql`pay_to`, payTo),
    })
  if (bounds.offersPerClient !== undefined && clientKey !== null)
    checks.push({
      bound: 'open-offers-per-client',
      max: bounds.offersPerClient,
      lock: BOOK_LOCKS.offersOfClient,
      key: clientKey,
      rows: openOffers(sql`client_key`, clientKey),
    })
  if (checks.length === 0) return undefined
  await lockBook(
    tx,
    checks.map((check) => [check.lock, check.key] as const),
  )
  const counted = await tx.execute(
    sql`SELECT ${sql.join(
      checks.map(
        (check, index) =>
          sql`(SELECT count(*) FROM (SELECT 1 ${check.rows} LIMIT ${check.max}::int) s) AS ${sql.identifier(`n${index}`)}`,
      ),
      sql`, `,
    )}`,
  )
  const [counts] = rowsOf<Record<string, number | string>>(counted)
  const full = checks.find((check, index) => Number(counts?.[`n${index}`]) >= check.max)
  if (!full) return undefined
  const soonest = await tx.execute(
    sql`SELECT ceil(extract(epoch FROM min(expires_at) - now())) AS seconds ${full.rows}`,
  )
  const seconds = Number(rowsOf<{ seconds: number | string | null }>(soonest)[0]?.seconds ?? 1)
  return { bound: full.bound, max: full.max, retryAfter: Math.max(seconds, 1) }
}

import { and, asc, count, desc, eq, gte, ne, sql } from 'drizzle-orm'
import { HELD_FOR_REVIEW } from '../admission/persona-state.ts'
import { utcDayOf } from '../db/day-counters.ts'
import { couples, personas, posts, reports, revenue, turns } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { formatUsdc } from '../orders/usdc.ts'

/** How many items of each kind the queue lists (oldest first: they waited longest). */
export const QUEUE_LIMIT = 50

/**
 * What waits for an operator: personas held for review (the chat page's
 * human docs: handle and date, never the heart), items held by the safety
 * check or by reporters (posts, featured ones marked, and turns: their
 * published text, which is what is judged), personas and couples held on
 * reports (each with its reporters), items reported but still live (below
 * the hold threshold, or released by an earlier approval), and the committed
 * couples whose introduction waits for the broker.
 */
export const reviewQueue = async (deps: Pick<VenueDeps, 'database'>) => {
  const { db } = deps.database
  const reportCounts = db
    .select({
      targetType: reports.targetType,
      targetId: reports.targetId,
      reporters: count().as('reporters'),
    })
    .from(reports)
    .groupBy(reports.targetType, reports.targetId)
    .as('report_counts')
  const [review, heldPersonas, heldPosts, heldTurns, heldCouples, reported, intros] =
    await Promise.all([
      db
        .select({ id: personas.id, handle: personas.handle, at: personas.createdAt })
        .from(personas)
        .where(and(eq(personas.status, 'held'), eq(personas.reason, HELD_FOR_REVIEW)))
        .orderBy(asc(personas.id))
        .limit(QUEUE_LIMIT),
      db
        .select({ id: personas.id, handle: personas.handle, reason: personas.reason })
        .from(personas)
        .where(and(eq(personas.status, 'held'), ne(personas.reason, HELD_FOR_REVIEW)))
        .orderBy(asc(personas.id))
        .limit(QUEUE_LIMIT),
      db
        .select({
          id: posts.id,
          board: posts.board,
          handle: posts.handle,
          body: posts.body,
          reason: posts.reason,
          featured: sql<boolean>`${posts.featuredUntil} IS NOT NULL`,
        })
        .from(posts)
        .where(eq(posts.status, 'held'))
        .orderBy(asc(posts.id))
        .limit(QUEUE_LIMIT),
      db
        .select({ id: turns.id, coupleId: turns.coupleId, body: turns.body, reason: turns.reason })
        .from(turns)
        .where(eq(turns.status, 'held'))
        .orderBy(asc(turns.id))
        .limit(QUEUE_LIMIT),
      db
        .select({ id: couples.id })
        .from(couples)
        .where(eq(couples.state, 'held'))
        .orderBy(asc(couples.id))
        .limit(QUEUE_LIMIT),
      db
        .select({
          targetType: reportCounts.targetType,
          targetId: reportCounts.targetId,
          reporters: reportCounts.reporters,
        })
        .from(reportCounts)
        .orderBy(desc(reportCounts.reporters))
        .limit(QUEUE_LIMIT),
      db
        .select({ coupleId: couples.id, since: couples.createdAt })
        .from(couples)
        .where(eq(couples.state, 'committed'))
        .orderBy(asc(couples.id))
        .limit(QUEUE_LIMIT),
    ])
  // A held item is listed once, with its reporters; `reported` keeps the items still live.
  const reportersOf = new Map(reported.map((row) => [`${row.targetType}:${row.targetId}`, row]))
  const withReporters = <row extends { id: number }>(type: string, rows: row[]) =>
    rows.map((row) => {
      const report = reportersOf.get(`${type}:${row.id}`)
      reportersOf.delete(`${type}:${row.id}`)
      return { ...row, reporters: report?.reporters ?? 0 }
    })
  const held = {
    heldPersonas: withReporters('persona', heldPersonas),
    heldPosts: withReporters('post', heldPosts),
    heldTurns: withReporters('turn', heldTurns),
    heldCouples: withReporters('couple', heldCouples),
  }
  return {
    personasForReview: review.map((row) => ({ ...row, at: row.at.toISOString() })),
    ...held,
    reported: [...reportersOf.values()],
    introsToBroker: intros.map((row) => ({
      coupleId: row.coupleId,
      since: row.since.toISOString(),
    })),
  }
}

/** How many days the console's chart covers. */
export const TREND_DAYS = 14

/**
 * The last `days` UTC days (today included), oldest first: admissions,
 * couples formed and revenue of each day, zero on quiet days. Read from the
 * rows' own dates, over the last days only.
 */
export const dailyTrends = async (
  deps: Pick<VenueDeps, 'database'>,
  { days = TREND_DAYS, now = new Date() }: { days?: number; now?: Date } = {},
) => {
  const { db } = deps.database
  const dayList = Array.from({ length: days }, (_, index) =>
    utcDayOf(new Date(now.getTime() - (days - 1 - index) * 86_400_000)),
  )
  const from = new Date(`${dayList[0]}T00:00:00Z`)
  const dayOf = (column: unknown) =>
    sql<string>`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD')`
  const [admitted, formed, earned] = await Promise.all([
    db
      .select({ day: dayOf(personas.admittedAt), count: sql<number>`count(*)::int` })
      .from(personas)
      .where(gte(personas.admittedAt, from))
      .groupBy(sql`1`),
    db
      .select({ day: dayOf(couples.createdAt), count: sql<number>`count(*)::int` })
      .from(couples)
      .where(gte(couples.createdAt, from))
      .groupBy(sql`1`),
    db
      .select({
        day: dayOf(revenue.createdAt),
        atomic: sql<string>`sum(${revenue.amountAtomic})::text`,
      })
      .from(revenue)
      .where(gte(revenue.createdAt, from))
      .groupBy(sql`1`),
  ])
  const byDay = <row extends { day: string }>(rows: row[]) =>
    new Map(rows.map((row) => [row.day, row]))
  const [a, c, r] = [byDay(admitted), byDay(formed), byDay(earned)]
  return dayList.map((day) => ({
    day,
    admissions: a.get(day)?.count ?? 0,
    couples: c.get(day)?.count ?? 0,
    revenue_usdc: formatUsdc(BigInt(r.get(day)?.atomic ?? '0')),
  }))
}

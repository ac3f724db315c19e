import { and, eq, gte, sql } from 'drizzle-orm'
import type { VenueDatabase } from './open.ts'
import { dayCounters } from './schema.ts'

/** The counters the console reads by day; each is one row per UTC day. */
export type DayCounter =
  | 'geo_denied'
  | 'chaperone_allow'
  | 'chaperone_held'
  | 'chaperone_blocked'
  | 'chaperone_unavailable'

/** `2026-11-25`: the UTC day a counter (and every "today" of the console) belongs to. */
export const utcDayOf = (at: Date) => at.toISOString().slice(0, 10)

/**
 * Adds one to today's `name`: one upsert, so the console reads a day's count
 * from one row instead of scanning events. A counter is bookkeeping: when the
 * database cannot take it the request it counts goes on (the caller catches).
 */
export const countToday = (db: VenueDatabase['db'], name: DayCounter, now = new Date()) =>
  db
    .insert(dayCounters)
    .values({ day: utcDayOf(now), name, count: 1 })
    .onConflictDoUpdate({
      target: [dayCounters.day, dayCounters.name],
      set: { count: sql`${dayCounters.count} + 1` },
    })

/** Every counter of `day`, zero when it never moved. */
export const countersOn = async (
  db: VenueDatabase['db'],
  day: string,
): Promise<Record<DayCounter, number>> => {
  const rows = await db
    .select({ name: dayCounters.name, count: dayCounters.count })
    .from(dayCounters)
    .where(eq(dayCounters.day, day))
  const counts: Record<DayCounter, number> = {
    geo_denied: 0,
    chaperone_allow: 0,
    chaperone_held: 0,
    chaperone_blocked: 0,
    chaperone_unavailable: 0,
  }
  for (const row of rows) if (row.name in counts) counts[row.name as DayCounter] = row.count
  return counts
}

/** A counter's daily values from `fromDay` on (days it never moved are absent). */
export const counterSince = async (db: VenueDatabase['db'], name: DayCounter, fromDay: string) =>
  db
    .select({ day: dayCounters.day, count: dayCounters.count })
    .from(dayCounters)
    .where(and(eq(dayCounters.name, name), gte(dayCounters.day, fromDay)))

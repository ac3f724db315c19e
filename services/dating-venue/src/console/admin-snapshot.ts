import { paymentsHealth } from '@agents/payments'
import { desc, eq, sql } from 'drizzle-orm'
import { countersOn, utcDayOf } from '../db/day-counters.ts'
import { capacity, couples, events, personas, turns } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { ordersByStatus } from '../orders/order-state.ts'
import { revenueTotals } from '../orders/revenue.ts'

/** How many of the latest events the snapshot carries. */
export const RECENT_EVENTS = 20

const COUPLE_STATES = ['courting', 'committed', 'brokered', 'withdrawn', 'held'] as const
const TURN_STATUSES = ['published', 'held', 'blocked'] as const

/** Counts by a column's value, every expected value present (zero when none). */
const countsBy = <key extends string>(
  expected: readonly key[],
  rows: Array<{ key: string; count: number }>,
) => {
  const counts = Object.fromEntries(expected.map((key) => [key, 0])) as Record<key, number>
  for (const row of rows) if (row.key in counts) counts[row.key as key] = row.count
  return counts
}

/**
 * `GET /admin.json`: the spec's stable keys, each defined in the README
 * ("Operator console"). "Today" is the UTC day of `now`; USDC amounts are
 * decimal strings made from atomic units. The statements are independent,
 * so on PostgreSQL they run side by side on the pool.
 */
export const adminSnapshot = async (
  deps: Pick<VenueDeps, 'database' | 'payments' | 'settings' | 'budget'>,
  { now = new Date() }: { now?: Date } = {},
) => {
  const { db } = deps.database
  const [
    payments,
    admitted,
    cap,
    unownedSharePct,
    unownedAdmitted,
    budgets,
    venueOpen,
    coupleRows,
    turnRows,
    counters,
    orders,
    totals,
    recent,
  ] = await Promise.all([
    paymentsHealth(deps.payments),
    db
      .select({ count: sql<number>`count(*)::int` })
      .from(personas)
      .where(eq(personas.status, 'admitted'))
      .then(([row]) => row?.count ?? 0),
    deps.settings.cap(),
    deps.settings.unownedSharePct(),
    db
      .select({ used: capacity.unownedUsed })
      .from(capacity)
      .where(eq(capacity.id, 1))
      .then(([row]) => row?.used ?? 0),
    deps.budget.outbound.state(),
    deps.settings.venueOpen(),
    db
      .select({ key: couples.state, count: sql<number>`count(*)::int` })
      .from(couples)
      .groupBy(couples.state),
    // One count per status, each matching a partial index (turns_published,
    // turns_held, turns_blocked): index-only scans instead of grouping every turn.
    Promise.all(
      TURN_STATUSES.map((status) =>
        db
          .select({ count: sql<number>`count(*)::int` })
          .from(turns)
          .where(eq(turns.status, status))
          .then(([row]) => ({ key: status as string, count: row?.count ?? 0 })),
      ),
    ),
    countersOn(db, utcDayOf(now)),
    ordersByStatus(deps.database),
    revenueTotals(deps.database),
    db
      .select({ id: events.id, kind: events.kind, detail: events.detail, at: events.createdAt })
      .from(events)
      .orderBy(desc(events.id))
      .limit(RECENT_EVENTS),
  ])
  const couplesByState = countsBy(COUPLE_STATES, coupleRows)
  return {
    // Answering at all means the database is up; payments degrade, never fail, the venue.
    health: { ok: true as const, database: 'ok' as const, payments: payments.status },
    sim_mode: !venueOpen,
    admitted,
    cap,
    cap_used_pct: cap > 0 ? Math.round((admitted / cap) * 1000) / 10 : 0,
    unowned_share_pct: unownedSharePct,
    unowned_seats: Math.floor((cap * unownedSharePct) / 100),
    unowned_admitted: unownedAdmitted,
    outbound_budgets: outboundBudgets(deps.budget, budgets),
    couples_by_state: couplesByState,
    turns_by_status: countsBy(TURN_STATUSES, turnRows),
    chaperone_today: {
      allow: counters.chaperone_allow,
      held: counters.chaperone_held,
      blocked: counters.chaperone_blocked,
      unavailable: counters.chaperone_unavailable,
    },
    orders_by_status: orders,
    revenue_usdc: totals.revenue_usdc,
    buyback_reserve_usdc: totals.buyback_reserve_usdc,
    geo_denials_today: counters.geo_denied,
    intros_to_broker: couplesByState.committed,
    recent_events: recent.map((event) => ({
      id: event.id,
      kind: event.kind,
      at: event.at.toISOString(),
      detail: (event.detail ?? null) as Record<string, unknown> | null,
    })),
  }
}

export type AdminSnapshot = Awaited<ReturnType<typeof adminSnapshot>>

/** The outbound budgets as they stand: the shared ones with what is left, the per-client policy. */
const outboundBudgets = (
  budget: VenueDeps['budget'],
  states: Awaited<ReturnType<VenueDeps['budget']['outbound']['state']>>,
) => {
  const shared = (name: string) => {
    const state = states.find((candidate) => candidate.name === name)!
    return {
      points: state.points,
      window_seconds: state.windowSeconds,
      remaining: state.remaining,
      reset_seconds: state.resetSeconds,
    }
  }
  const { perClient } = budget.outbound.policies
  return {
    global: shared('outbound-global'),
    paid: shared('outbound-paid'),
    per_client: { points: perClient.points, window_seconds: perClient.windowSeconds },
  }
}

import { LEDGER_STATES, paymentLedger } from '@agents/payments'
import { rowsOf } from '@agents/service-kit/db'
import { sql } from 'drizzle-orm'
import type { VenueDeps } from '../deps.ts'

type GaugeDeps = Pick<VenueDeps, 'metrics' | 'database' | 'settings' | 'floor' | 'logger'>

/** Unresolved ledger rows: the reconciler's predicate, which the partial index payment_ledger_unresolved covers. */
const unresolved = sql`${paymentLedger.state} IN ('claimed', 'settling', 'unknown') OR (${paymentLedger.state} = 'settled' AND ${paymentLedger.fulfilledAt} IS NULL)`

/**
 * The venue's gauges, read when `/metrics` is scraped (nothing is kept in
 * between): seats held by owned and unowned personas and the cap, this
 * replica's live floor streams, payment ledger rows by state and the age of
 * the oldest unresolved one. The database figures are the whole venue's, so
 * every replica reports the same (aggregate them with `max`, not `sum`). A
 * read that fails keeps the last value and is logged: a scrape never fails
 * for it.
 */
export const registerVenueGauges = (deps: GaugeDeps) => {
  const { metrics, logger } = deps
  const { db } = deps.database
  const guard = async (name: string, read: () => Promise<void> | void) => {
    try {
      await read()
    } catch (error) {
      logger.warn({ err: error, metric: name }, 'metrics: a gauge could not be read')
    }
  }

  metrics.gauge(
    'venue_seats_used',
    'Admitted personas holding a seat: owned (an owner stands behind it) or unowned (anonymous, simulation, red team, an agent bound to no owner)',
    ['owner'],
    async function collect() {
      await guard('venue_seats_used', async () => {
        // Owned as admission counts seats (seatKindOf): an owner stands behind the persona.
        const rows = rowsOf<{ owned: boolean; seats: number }>(
          await db.execute(sql`SELECT owner_id IS NOT NULL AS owned, count(*)::int AS seats
            FROM personas WHERE status = 'admitted' GROUP BY 1`),
        )
        this.set({ owner: 'owned' }, rows.find((row) => row.owned)?.seats ?? 0)
        this.set({ owner: 'unowned' }, rows.find((row) => !row.owned)?.seats ?? 0)
      })
    },
  )
  metrics.gauge(
    'venue_seat_cap',
    'Admitted personas at most (the operator setting cap)',
    [],
    async function collect() {
      await guard('venue_seat_cap', async () => this.set(await deps.settings.cap()))
    },
  )
  metrics.gauge(
    'venue_floor_streams',
    'Live floor streams open on this replica (of="streams"), and the client addresses holding them (of="addresses")',
    ['of'],
    function collect() {
      const { streams, addresses } = deps.floor.stats()
      this.set({ of: 'streams' }, streams)
      this.set({ of: 'addresses' }, addresses)
    },
  )
  metrics.gauge(
    'payment_ledger_rows',
    'Payment ledger rows by state (claimed, settling, settled, failed, unknown)',
    ['state'],
    async function collect() {
      await guard('payment_ledger_rows', async () => {
        const rows = await db
          .select({ state: paymentLedger.state, rows: sql<number>`count(*)::int` })
          .from(paymentLedger)
          .groupBy(paymentLedger.state)
        for (const state of LEDGER_STATES)
          this.set({ state }, rows.find((row) => row.state === state)?.rows ?? 0)
      })
    },
  )
  metrics.gauge(
    'payment_ledger_oldest_unresolved_seconds',
    'Age of the oldest unresolved payment ledger row (in flight, outcome unknown, or settled and not delivered); 0 when none',
    [],
    async function collect() {
      await guard('payment_ledger_oldest_unresolved_seconds', async () => {
        const [row] = await db
          .select({
            seconds: sql<
              number | null
            >`extract(epoch FROM now() - min(${paymentLedger.createdAt}))::float8`,
          })
          .from(paymentLedger)
          .where(unresolved)
        this.set(Math.max(Number(row?.seconds ?? 0), 0))
      })
    },
  )
}

import { LEDGER_STATES } from '@agents/payments'
import { createMetrics, type Logger, type Metrics } from '@agents/service-kit'
import type { SqlClient } from '@agents/service-kit/db'

type Count = { n: number | string | null }

/** The rail's metrics: the kit's (requests, limits) and what the book and the payment ledger hold. */
export type RailMetrics = Metrics & {
  /** Reconciler passes by outcome: `ran`, `skipped` (another replica held the lock), `failed`. */
  reconcilerRuns: ReturnType<Metrics['counter']>
}

/**
 * The kit's metrics plus gauges read from the database at scrape time: the
 * open book (offers, intents, matches awaiting payment), the payment ledger's
 * rows by state and the age of its oldest unresolved row. A scrape while the
 * database is down leaves those gauges out rather than failing the scrape.
 */
export const createRailMetrics = ({
  client,
  logger,
  processMetrics = true,
}: {
  client: SqlClient
  logger: Logger
  processMetrics?: boolean
}): RailMetrics => {
  const metrics = createMetrics({ service: 'swap-rail', processMetrics })
  const read = async (gauge: { reset(): void }, work: () => Promise<void>) => {
    try {
      await work()
    } catch (error) {
      gauge.reset()
      logger.warn(
        { err: error, metric: (gauge as unknown as { name: string }).name },
        'metric unread',
      )
    }
  }
  const countOf = (text: string) => async () =>
    Number((await client.query(text)).rows.map((row) => (row as Count).n)[0] ?? 0)
  for (const [name, help, text] of [
    [
      'swap_open_offers',
      'Offers open in the book',
      `SELECT count(*) AS n FROM swap_offers WHERE status = 'open'`,
    ],
    [
      'swap_open_intents',
      'Intents waiting for an offer',
      `SELECT count(*) AS n FROM swap_intents WHERE status = 'open'`,
    ],
    [
      'swap_unpaid_matches',
      'Matches awaiting payment',
      `SELECT count(*) AS n FROM swap_matches WHERE status = 'awaiting_payment'`,
    ],
  ] as const) {
    const count = countOf(text)
    metrics.gauge(name, help, [], async function collect() {
      await read(this, async () => this.set(await count()))
    })
  }
  metrics.gauge(
    'payment_ledger_rows',
    'Payment ledger rows by state',
    ['state'],
    async function collect() {
      await read(this, async () => {
        const { rows } = await client.query(
          'SELECT state, count(*) AS n FROM payment_ledger GROUP BY state',
        )
        const byState = new Map(
          (rows as Array<Count & { state: string }>).map((row) => [row.state, Number(row.n)]),
        )
        for (const state of LEDGER_STATES) this.set({ state }, byState.get(state) ?? 0)
      })
    },
  )
  metrics.gauge(
    'payment_ledger_oldest_unresolved_seconds',
    'Age of the oldest payment not yet resolved (claimed, settling, unknown, or settled and not delivered); 0 when none',
    [],
    async function collect() {
      await read(this, async () => {
        const age = await countOf(`
          SELECT coalesce(extract(epoch FROM now() - min(created_at)), 0) AS n FROM payment_ledger
          WHERE state IN ('claimed', 'settling', 'unknown') OR (state = 'settled' AND fulfilled_at IS NULL)`)()
        this.set(age)
      })
    },
  )
  const reconcilerRuns = metrics.counter(
    'payment_reconciler_runs_total',
    'Payment reconciler passes, by outcome (ran, skipped: another replica held the lock, failed)',
    ['outcome'],
  )
  return { ...metrics, reconcilerRuns }
}

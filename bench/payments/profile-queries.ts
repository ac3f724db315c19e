import { PGlite, type Transaction } from '@electric-sql/pglite'
import pg from 'pg'

type Times = Map<string, number[]>

/** A statement's label: its first words, parameters and quoting dropped. */
const labelOf = (text: string) =>
  text
    .replace(/"/g, '')
    .replace(/\s+/g, ' ')
    .replace(/\$\d+/g, '?')
    .replace(/^(insert into \S+).*?(on conflict.*?do update).*?(returning.*)?$/i, '$1 … $2 … $3')
    .replace(/^(update \S+ set [a-z_]+).*?(where.*)$/i, '$1 … $2')
    .replace(/^(select) .*? (from \S+)(.*)$/i, '$1 … $2$3')
    .slice(0, 110)
    .trim()

const record = (times: Times, label: string, started: number) => {
  const list = times.get(label) ?? []
  list.push(performance.now() - started)
  times.set(label, list)
}

/**
 * Times every SQL statement the process sends, by statement: node-postgres
 * clients (BEGIN and COMMIT included), and PGlite queries, with a PGlite
 * transaction's own BEGIN/COMMIT counted as `(transaction overhead)`.
 * For the bench's profile only: it patches both drivers' prototypes.
 */
export const profileQueries = (): { pg: Times; pglite: Times } => {
  const times = { pg: new Map() as Times, pglite: new Map() as Times }

  const clientQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown
  pg.Client.prototype.query = function timedQuery(this: pg.Client, ...args: unknown[]) {
    const [config] = args
    const text = typeof config === 'string' ? config : (config as { text?: string })?.text
    const started = performance.now()
    const done = () => text && record(times.pg, labelOf(text), started)
    // Pool.query calls back; drizzle's transactions await.
    const callback = args.at(-1)
    if (typeof callback === 'function')
      args[args.length - 1] = (...results: unknown[]) => {
        done()
        return callback(...results)
      }
    const result = clientQuery.apply(this, args)
    return result instanceof Promise ? result.finally(done) : result
  } as typeof pg.Client.prototype.query

  const query = PGlite.prototype.query
  PGlite.prototype.query = async function timedQuery(this: PGlite, ...args) {
    const started = performance.now()
    try {
      return (await query.apply(this, args)) as never
    } finally {
      record(times.pglite, labelOf(String(args[0])), started)
    }
  }
  const transaction = PGlite.prototype.transaction
  PGlite.prototype.transaction = async function timedTransaction<T>(
    this: PGlite,
    callback: (tx: Transaction) => Promise<T>,
  ): Promise<T> {
    let inside = 0
    const started = performance.now()
    try {
      return (await transaction.call(this, (tx: Transaction) => {
        const txQuery = tx.query.bind(tx)
        tx.query = (async (...args: Parameters<typeof tx.query>) => {
          const queryStarted = performance.now()
          try {
            return await txQuery(...args)
          } finally {
            inside += performance.now() - queryStarted
            record(times.pglite, labelOf(String(args[0])), queryStarted)
          }
        }) as typeof tx.query
        return callback(tx)
      })) as T
    } finally {
      const list =
        times.pglite.get('(transaction: BEGIN, COMMIT and the work between statements)') ?? []
      list.push(performance.now() - started - inside)
      times.pglite.set('(transaction: BEGIN, COMMIT and the work between statements)', list)
    }
  }
  return times
}

import {
  type PGlite,
  parse,
  protocol,
  type QueryOptions,
  type Results,
  type Transaction,
} from '@electric-sql/pglite'
import type { TransactionGuard } from './transaction-guard.ts'

/** More distinct statements than this run unprepared (generated `IN` lists can vary without end). */
const DEFAULT_MAX_STATEMENTS = 1_000

type Prepared = { name: string; parameterTypes: number[] }
type Parsers = PGlite['parsers']

/**
 * PGlite with every parameterised statement prepared once, as
 * `PreparingClient` does on PostgreSQL. PGlite's own `query` parses, plans
 * and describes its statement again on every call, in six protocol
 * exchanges, all on the service's event loop; a prepared statement runs in
 * one (bind, describe, execute, sync). A one-row select by key went from
 * 316 to 86 µs and an update feeding an insert from 406 to 138 µs
 * (bench/README.md, "PGlite prepares its statements").
 *
 * Answers exactly as `PGlite.query` does (the same serializers, parsers and
 * result shape), under the same two locks, so it waits for an open
 * transaction as `query` does. Transactions are PGlite's own. With a
 * `guard`, a query (or a transaction) started from inside an open
 * transaction's work, which would wait for that transaction while it waits
 * for the query, throws instead.
 */
export class PreparingPglite {
  readonly #pglite: PGlite
  readonly #maxStatements: number
  readonly #guard: TransactionGuard | undefined
  readonly #statements = new Map<string, Prepared>()
  readonly #merged = new Map<string, Parsers>()
  #named = 0

  constructor(
    pglite: PGlite,
    {
      maxStatements = DEFAULT_MAX_STATEMENTS,
      guard,
    }: { maxStatements?: number; guard?: TransactionGuard | undefined } = {},
  ) {
    this.#pglite = pglite
    this.#maxStatements = maxStatements
    this.#guard = guard
  }

  /** How many statements are prepared (for tests). */
  get preparedCount() {
    return this.#statements.size
  }

  query = <row>(text: string, params: unknown[] = [], options?: QueryOptions) => {
    try {
      this.#guard?.assertOutside(text)
    } catch (error) {
      return Promise.reject(error)
    }
    const prepare =
      params.length > 0 &&
      !options?.paramTypes &&
      !options?.blob &&
      (this.#statements.has(text) || this.#statements.size < this.#maxStatements)
    if (!prepare) return this.#pglite.query<row>(text, params, options)
    return this.#pglite._runExclusiveTransaction(() =>
      this.#pglite._runExclusiveQuery(() => this.#run<row>(text, params, options)),
    )
  }

  transaction = <value>(work: (tx: Transaction) => Promise<value>) => {
    const guard = this.#guard
    if (!guard) return this.#pglite.transaction(work)
    try {
      guard.assertOutside('BEGIN (a transaction inside an open one)')
    } catch (error) {
      return Promise.reject(error)
    }
    return this.#pglite.transaction((tx) => guard.within(() => work(tx)))
  }

  async #run<row>(text: string, params: unknown[], options?: QueryOptions) {
    const statement = this.#statements.get(text) ?? (await this.#prepare(text))
    const { serializers } = this.#pglite
    const values = params.map((value, index) => {
      if (value === null || value === undefined) return null
      const serialize = serializers[statement.parameterTypes[index]!]
      return serialize ? serialize(value) : String(value)
    })
    const { serialize } = protocol
    try {
      const { messages } = await this.#pglite.execProtocol(
        concat([
          serialize.bind({ statement: statement.name, values }),
          serialize.describe({ type: 'P' }),
          serialize.execute({}),
          serialize.sync(),
        ]),
      )
      const { parsers: _, ...rest } = options ?? {}
      return parse.parseResults(messages, this.#parsersFor(options), rest)[0] as Results<row>
    } catch (error) {
      // A statement the server no longer has, or whose plan no longer fits
      // (its table changed), is prepared again on the next call.
      const code = (error as { code?: string }).code
      if (code === '26000' || code === '0A000') this.#statements.delete(text)
      throw error
    }
  }

  async #prepare(text: string): Promise<Prepared> {
    this.#named += 1
    const name = `prepared_${this.#named}`
    const { serialize } = protocol
    const { messages } = await this.#pglite.execProtocol(
      concat([
        serialize.parse({ name, text }),
        serialize.describe({ type: 'S', name }),
        serialize.sync(),
      ]),
    )
    const description = messages.find((message) => message.name === 'parameterDescription') as
      | { dataTypeIDs: number[] }
      | undefined
    const prepared = { name, parameterTypes: description?.dataTypeIDs ?? [] }
    this.#statements.set(text, prepared)
    return prepared
  }

  /**
   * PGlite merges a query's own parsers into its whole table on every call
   * (hundreds of types; 0.1 to 0.2 ms a query here). drizzle passes the same
   * ones with every query (timestamps, dates and intervals as text), so the
   * merge is made once per set of type ids: the first parsers given for a set
   * serve every later query that gives the same type ids.
   */
  #parsersFor(options?: QueryOptions): Parsers {
    if (!options?.parsers) return this.#pglite.parsers
    const key = Object.keys(options.parsers).join(',')
    let merged = this.#merged.get(key)
    if (!merged) {
      merged = { ...this.#pglite.parsers, ...options.parsers }
      this.#merged.set(key, merged)
    }
    return merged
  }
}

const concat = (parts: Uint8Array[]) => {
  const joined = new Uint8Array(parts.reduce((length, part) => length + part.length, 0))
  let offset = 0
  for (const part of parts) {
    joined.set(part, offset)
    offset += part.length
  }
  return joined
}

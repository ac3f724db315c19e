import { createHash } from 'node:crypto'
import pg from 'pg'

/**
 * A pg Client that prepares every parameterised query once per connection
 * (a statement named by a hash of its text), instead of node-postgres's
 * default unnamed statement that PostgreSQL parses and plans on every call.
 * The swap rail's matcher is one large statement: preparing it halved
 * PostgreSQL's CPU per match and raised matches/s by 64 % (bench/README.md).
 * Queries without parameters (migrations, multi-statement scripts) keep the
 * simple protocol.
 */
export class PreparingClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: node-postgres's query has many overloads; this forwards them all
  override query(config: any, values?: any, callback?: any): any {
    if (typeof config === 'string' && Array.isArray(values)) {
      return withPoolerHint(
        super.query({ name: statementName(config), text: config, values }, hinted(callback)),
      )
    }
    if (
      config !== null &&
      typeof config === 'object' &&
      typeof config.text === 'string' &&
      config.name === undefined &&
      typeof config.submit !== 'function' &&
      Array.isArray(config.values ?? values)
    ) {
      return withPoolerHint(
        super.query(
          { ...config, name: statementName(config.text) },
          hinted(values),
          hinted(callback),
        ),
      )
    }
    return super.query(config, values, callback)
  }
}

/**
 * A pg Client for a transaction pooler: every statement unnamed (parsed and
 * planned on each call), drizzle's named ones (`preparedOnce`) included. A
 * named statement lives on one server connection, which the pooler hands to
 * other clients: PostgreSQL then answers `prepared statement "…" already
 * exists` (42P05) or `does not exist` (26000).
 */
export class UnpreparedClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: node-postgres's query has many overloads; this forwards them all
  override query(config: any, values?: any, callback?: any): any {
    if (
      config !== null &&
      typeof config === 'object' &&
      config.name !== undefined &&
      typeof config.submit !== 'function'
    ) {
      const { name: _, ...unnamed } = config
      return super.query(unnamed, values, callback)
    }
    return super.query(config, values, callback)
  }
}

// Errors a named statement meets behind a transaction pooler: say what to set.
const POOLER_CODES = new Set(['42P05', '26000'])
const POOLER_HINT =
  ' (is DATABASE_URL a pooler in transaction mode? Then set DATABASE_POOL_MODE=transaction and DATABASE_DIRECT_URL)'
const addPoolerHint = (error: unknown) => {
  const failure = error as { code?: string; message?: string } | null
  if (failure && POOLER_CODES.has(failure.code ?? '') && !failure.message?.endsWith(POOLER_HINT))
    failure.message += POOLER_HINT
  return error
}
// biome-ignore lint/suspicious/noExplicitAny: a node-postgres callback of any shape
const hinted = (callback: any) =>
  typeof callback === 'function'
    ? (error: unknown, ...rest: unknown[]) =>
        callback(error ? addPoolerHint(error) : error, ...rest)
    : callback
const withPoolerHint = (result: unknown) =>
  result instanceof Promise
    ? result.catch((error: unknown) => {
        throw addPoolerHint(error)
      })
    : result

const statementName = (text: string) =>
  `s_${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`

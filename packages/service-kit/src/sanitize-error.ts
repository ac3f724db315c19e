/**
 * An error as it may be logged: no user text. Query parameters, PostgreSQL's
 * `detail`/`where`/`hint` and quoted values in a database message are dropped;
 * what locates the fault (the class, the SQLSTATE code, the SQL text with its
 * placeholders, the table, column and constraint, the stack frames) stays.
 */
export type SanitizedError = {
  name: string
  message: string
  code?: string
  stack?: string
  severity?: string
  table?: string
  column?: string
  constraint?: string
  routine?: string
  cause?: SanitizedError
}

// Fields of pg's and PGlite's DatabaseError that name schema objects, never values.
const SCHEMA_FIELDS = ['severity', 'table', 'column', 'constraint', 'routine'] as const
const SQLSTATE = /^[0-9A-Z]{5}$/
const MAX_CAUSES = 5

/** Drizzle appends "\nparams: <the query's parameters>" to a failed query's message. */
const withoutParams = (message: string) => message.replace(/\nparams: [\s\S]*$/, '')

/** PostgreSQL quotes the offending input in its messages (`value "..." is out of range`). */
const withoutQuotedValues = (message: string) => message.replace(/"(?:[^"]|"")*"/g, '"…"')

// pg and PGlite name their server errors `error`; drizzle's query error is a plain `Error`.
const nameOf = (error: Error) => {
  if (error.name === 'error') return 'DatabaseError'
  if (error.name && error.name !== 'Error') return error.name
  // Already sanitized (a plain object): its name is the one to keep.
  if (!((error as unknown) instanceof Error)) return error.name || 'Error'
  const className = (error as { constructor?: { name?: string } }).constructor?.name
  return className && className.length > 2 ? className : 'Error'
}

/**
 * The frames of a stack without its head, which repeats the unsanitized
 * message (cut after the message itself, so text in it that looks like a
 * frame goes too).
 */
const framesOf = (stack: string, message: string) => {
  const at = message ? stack.indexOf(message) : -1
  const rest = at === -1 ? stack : stack.slice(at + message.length)
  const start = rest.search(/\n\s+at /)
  return start === -1 ? '' : rest.slice(start)
}

/**
 * The loggable form of anything thrown: see `SanitizedError`. Use it for
 * every logged error that may come from the database (createLogger's `err`
 * serializer applies it already).
 *
 * @example logger.error({ err: sanitizeError(error) }, 'unhandled error')
 */
export const sanitizeError = (error: unknown, depth = 0): SanitizedError => {
  if (typeof error !== 'object' || error === null || typeof (error as Error).message !== 'string')
    return { name: 'NonError', message: `thrown ${typeof error}` }
  const source = error as Error & Record<string, unknown>
  const code = typeof source.code === 'string' ? source.code : undefined
  const fromDatabase = code !== undefined && SQLSTATE.test(code)
  let message = withoutParams(source.message)
  if (fromDatabase) message = withoutQuotedValues(message)
  const name = nameOf(source)
  const sanitized: SanitizedError = { name, message }
  if (code !== undefined) sanitized.code = code
  if (typeof source.stack === 'string')
    sanitized.stack = `${name}: ${message}${framesOf(source.stack, source.message)}`
  for (const field of SCHEMA_FIELDS)
    if (typeof source[field] === 'string') sanitized[field] = source[field] as string
  if (source.cause !== undefined && depth < MAX_CAUSES)
    sanitized.cause = sanitizeError(source.cause, depth + 1)
  return sanitized
}

/** PostgreSQL's SQLSTATE for a unique violation. */
const UNIQUE_VIOLATION = '23505'

/**
 * Whether a query failed on a unique constraint. node-postgres puts the
 * SQLSTATE on the error; drizzle wraps it (`cause`); PGlite does either.
 */
export const isUniqueViolation = (error: unknown): boolean => {
  const shaped = error as { code?: unknown; cause?: { code?: unknown } } | null | undefined
  return shaped?.code === UNIQUE_VIOLATION || shaped?.cause?.code === UNIQUE_VIOLATION
}

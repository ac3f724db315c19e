/**
 * The rows of a raw `db.execute(sql...)` result, typed by the caller: both
 * drivers (node-postgres and PGlite) answer `{ rows }`, which drizzle types
 * loosely. The type is a promise the query's SELECT list keeps.
 */
export const rowsOf = <row>(result: unknown): row[] => (result as { rows: row[] }).rows

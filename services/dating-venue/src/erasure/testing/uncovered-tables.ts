import type { ErasedTables } from '../../db/erased-tables.ts'

type Query = <row>(text: string) => Promise<row[]>

/**
 * Columns that hold an owner, a persona or a wallet by their name: `owner_id`,
 * `persona_id`, `persona_a`, `wallet`, the ledger's `payer`, and the chat's
 * `speaker` (the human's wallet, or `agent:<endpointId>`).
 */
const HOLDS_SOMEONE = '(^|_)(owner|persona|wallet|payer|speaker)(_|$)'

/**
 * Every table of the database (schema `public`) with an owner, persona or
 * wallet column that no part of the erasure covers: a table is covered when
 * a part declares it, or when a foreign key deletes its rows with a row the
 * erasure deletes (ON DELETE CASCADE, followed from table to table). Also
 * answers the declared tables the schema does not have (a renamed table).
 */
export const uncoveredTables = async (
  query: Query,
  parts: ReadonlyArray<{ by: string; erases: ErasedTables }>,
) => {
  const holding = await query<{ table_name: string; column_name: string }>(
    `SELECT c.table_name, c.column_name FROM information_schema.columns c
       JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
        AND c.column_name ~ '${HOLDS_SOMEONE}'
      ORDER BY c.table_name, c.ordinal_position`,
  )
  const cascades = await query<{ child: string; parent: string }>(
    `SELECT child.relname AS child, parent.relname AS parent FROM pg_constraint c
       JOIN pg_class child ON child.oid = c.conrelid
       JOIN pg_class parent ON parent.oid = c.confrelid
      WHERE c.contype = 'f' AND c.confdeltype = 'c'
        AND c.connamespace = 'public'::regnamespace`,
  )
  const tables = new Set(
    (
      await query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables
          WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
      )
    ).map((row) => row.table_name),
  )
  const declared = new Map<string, 'deleted' | 'anonymized'>()
  const declaredBy = new Map<string, string[]>()
  for (const part of parts)
    for (const [table, how] of Object.entries(part.erases)) {
      // A table one part deletes from and another anonymizes is deleted from.
      if (declared.get(table) !== 'deleted') declared.set(table, how)
      declaredBy.set(table, [...(declaredBy.get(table) ?? []), part.by])
    }
  const deleted = new Set([...declared].filter(([, how]) => how === 'deleted').map(([t]) => t))
  for (let grew = true; grew; ) {
    grew = false
    for (const { child, parent } of cascades)
      if (deleted.has(parent) && !deleted.has(child)) {
        deleted.add(child)
        grew = true
      }
  }
  const uncovered = new Map<string, string[]>()
  for (const { table_name: table, column_name: column } of holding)
    if (!declared.has(table) && !deleted.has(table))
      uncovered.set(table, [...(uncovered.get(table) ?? []), column])
  return {
    /** `table (columns)` for each table no part covers. */
    uncovered: [...uncovered].map(([table, columns]) => `${table} (${columns.join(', ')})`),
    /** `table (by)` for each declared table the schema does not have. */
    unknown: [...declaredBy]
      .filter(([table]) => !tables.has(table))
      .map(([table, by]) => `${table} (${by.join(', ')})`)
      .sort(),
    /** Tables holding someone, for the test to see the scan found them. */
    holding: [...new Set(holding.map((row) => row.table_name))],
  }
}

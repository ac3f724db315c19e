import type { Venue } from '../../start.ts'

/**
 * Every column of every table of the venue's database that holds `value`
 * (a wallet's address, a transaction hash): its hex digits without `0x`,
 * searched without regard to letter case (so lower case, checksummed and
 * upper case alike, with or without `0x`, and a bytea's hex) in each
 * column's text. Answers `table.column` for each hit, in table order.
 */
export const columnsHolding = async (venue: Venue, value: string) => {
  const needle = value.toLowerCase().replace(/^0x/, '')
  if (!/^[0-9a-f]{40,}$/.test(needle)) throw new Error(`not an address or a hash: ${value}`)
  const query = async <row>(text: string, parameters: unknown[] = []) =>
    (await venue.deps.database.client.query(text, parameters)).rows as row[]
  const columns = await query<{ table_name: string; column_name: string }>(
    `SELECT c.table_name, c.column_name FROM information_schema.columns c
       JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
      ORDER BY c.table_name, c.ordinal_position`,
  )
  const byTable = new Map<string, string[]>()
  for (const { table_name: table, column_name: column } of columns)
    byTable.set(table, [...(byTable.get(table) ?? []), column])
  // Every table is searched: a schema that lost its tables would find nothing, and pass.
  if (byTable.size < 25) throw new Error(`only ${byTable.size} tables to search`)
  const found: string[] = []
  for (const [table, of] of byTable) {
    const [hits] = await query<Record<string, number>>(
      `SELECT ${of
        .map(
          (column, index) =>
            `count(*) FILTER (WHERE strpos(lower("${column}"::text), $1) > 0)::int AS c${index}`,
        )
        .join(', ')} FROM "${table}"`,
      [needle],
    )
    of.forEach((column, index) => {
      if (hits![`c${index}`]! > 0) found.push(`${table}.${column}`)
    })
  }
  return found
}

/** Columns a paid order keeps its payer in until an erasure: what a scan must find before one. */
export const PAYER_COLUMNS = [
  'payment_ledger.reference',
  'payment_ledger.payer',
  'payment_ledger.proof',
  'payment_ledger.receipt',
  'orders.id',
  'orders.payment_reference',
  'revenue.order_id',
]

import { randomUUID } from 'node:crypto'
import { type AnyTransaction, pgArray, rowsOf } from '@agents/service-kit/db'
import { sql } from 'drizzle-orm'
import type { ErasedTables } from '../db/erased-tables.ts'

const texts = (values: readonly string[]) => sql`${pgArray(values)}::text[]`

/** An order of an erased owner, with the payment references it keeps. */
export type ErasedOwnerOrder = {
  id: string
  payment_reference: string | null
  settling_reference: string | null
}

/**
 * The orders of an erased owner, and those of its anonymized payments: the
 * owner, transaction and failure reason cleared, each payment reference
 * replaced by its keyed hash (`anonymized`: reference to hash), an id built
 * from a reference (`<kind>:<reference>`) rebuilt from the hash, and a
 * report's id (`cr:<ownerId>:...`, it names the owner) renamed
 * `cr:erased:<random uuid>`; revenue and credits follow the id. Answers the
 * ids the orders had.
 */
const anonymizeOrders = async (
  tx: AnyTransaction,
  ownerId: number,
  anonymized: ReadonlyMap<string, string>,
) => {
  const references = texts([...anonymized.keys()])
  const rows = rowsOf<ErasedOwnerOrder>(
    await tx.execute(sql`
      SELECT id, payment_reference, settling_reference FROM orders
      WHERE owner_id = ${ownerId} OR id LIKE ${`cr:${ownerId}:%`}
         OR payment_reference = ANY(${references}) OR settling_reference = ANY(${references})
         OR substr(id, strpos(id, ':') + 1) = ANY(${references})
      FOR UPDATE`),
  )
  const swap = (reference: string | null) =>
    reference === null ? '' : (anonymized.get(reference) ?? reference)
  const renamed = rows.map((row) => {
    const colon = row.id.indexOf(':')
    const hashed = anonymized.get(row.id.slice(colon + 1))
    return {
      from: row.id,
      to: row.id.startsWith(`cr:${ownerId}:`)
        ? `cr:erased:${randomUUID()}`
        : hashed
          ? `${row.id.slice(0, colon)}:${hashed}`
          : row.id,
      payment: swap(row.payment_reference),
      settling: swap(row.settling_reference),
    }
  })
  const from = texts(renamed.map((order) => order.from))
  const to = texts(renamed.map((order) => order.to))
  await tx.execute(sql`
    UPDATE orders AS o
    SET id = m.to_id, payment_reference = nullif(m.payment, ''),
        settling_reference = nullif(m.settling, ''), transaction = NULL, failure_reason = NULL,
        owner_id = CASE WHEN o.owner_id = ${ownerId} THEN NULL ELSE o.owner_id END
    FROM unnest(${from}, ${to}, ${texts(renamed.map((order) => order.payment))},
                ${texts(renamed.map((order) => order.settling))})
      AS m(from_id, to_id, payment, settling)
    WHERE o.id = m.from_id`)
  for (const table of ['revenue', 'credit_events'] as const)
    await tx.execute(sql`
      UPDATE ${sql.identifier(table)} AS t SET order_id = m.to_id
      FROM unnest(${from}, ${to}) AS m(from_id, to_id)
      WHERE t.order_id = m.from_id AND m.from_id <> m.to_id`)
  return renamed.map((order) => order.from)
}

/**
 * What erasing an owner means for `orders` and the rows that name an order
 * (erasure/erase-owner.ts runs it in its one transaction): orders and
 * revenue stay as anonymous amounts, for accounting. `of` reads the owner's
 * orders (its own, and a report's, `cr:<ownerId>:...`) for the payment
 * references the ledger anonymizes; `anonymize` then rewrites them with the
 * ledger's keyed hashes.
 */
export const ordersErasure = {
  erases: { orders: 'anonymized', revenue: 'anonymized' } satisfies ErasedTables,
  of: async (tx: AnyTransaction, ownerId: number) =>
    rowsOf<ErasedOwnerOrder>(
      await tx.execute(
        sql`SELECT id, payment_reference, settling_reference FROM orders
            WHERE owner_id = ${ownerId} OR id LIKE ${`cr:${ownerId}:%`}`,
      ),
    ),
  anonymize: anonymizeOrders,
}

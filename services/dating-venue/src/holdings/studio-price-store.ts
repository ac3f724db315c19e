import { and, eq, lte } from 'drizzle-orm'
import type { VenueDatabase } from '../db/open.ts'
import { studioPrice } from '../db/schema.ts'
import type { PriceStore, StoredPrice } from './price-oracle.ts'

const ROW = 1

type Row = {
  priceMicroUsd: bigint | null
  updatedAt: number | null
  observedAt: number | null
}

const priceOf = (row: Row): StoredPrice | undefined =>
  row.priceMicroUsd === null || row.updatedAt === null || row.observedAt === null
    ? undefined
    : { priceMicroUsd: row.priceMicroUsd, updatedAt: row.updatedAt, observedAt: row.observedAt }

/**
 * The oracle's stored price in one database row, shared by replicas and
 * kept across restarts. Claiming the next read of the source is one
 * conditional upsert of the row's `attempted_at`: of replicas racing, one
 * writes it and reads the source; the others find it not due.
 */
export const studioPriceStore = (database: VenueDatabase): PriceStore => ({
  read: async () => {
    const [row] = await database.db.select().from(studioPrice).where(eq(studioPrice.id, ROW))
    return row ? { price: priceOf(row), attemptedAt: row.attemptedAt } : undefined
  },
  claim: async (at, dueBy) => {
    const [row] = await database.db
      .insert(studioPrice)
      .values({ id: ROW, attemptedAt: at })
      .onConflictDoUpdate({
        target: studioPrice.id,
        set: { attemptedAt: at },
        setWhere: lte(studioPrice.attemptedAt, dueBy),
      })
      .returning()
    return row ? { price: priceOf(row) } : undefined
  },
  save: async (price, claimedAt) => {
    await database.db
      .update(studioPrice)
      .set(price)
      .where(and(eq(studioPrice.id, ROW), eq(studioPrice.attemptedAt, claimedAt)))
  },
})

import { eq } from 'drizzle-orm'
import type { VenueDatabase } from '../db/open.ts'
import { studioPrice } from '../db/schema.ts'
import type { StoredPrice } from './price-oracle.ts'

const ROW = 1

/** The oracle's stored price in the database, shared by replicas and kept across restarts. */
export const studioPriceStore = (database: VenueDatabase) => ({
  load: async (): Promise<StoredPrice | undefined> => {
    const [row] = await database.db.select().from(studioPrice).where(eq(studioPrice.id, ROW))
    return row
      ? { priceMicroUsd: row.priceMicroUsd, updatedAt: row.updatedAt, observedAt: row.observedAt }
      : undefined
  },
  save: async (price: StoredPrice) => {
    await database.db
      .insert(studioPrice)
      .values({ id: ROW, ...price })
      .onConflictDoUpdate({ target: studioPrice.id, set: price })
  },
})

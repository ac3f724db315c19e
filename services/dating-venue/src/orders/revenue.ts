import { sql } from 'drizzle-orm'
import type { VenueDatabase } from '../db/open.ts'
import { revenue } from '../db/schema.ts'
import { formatUsdc } from './usdc.ts'

/** The spec's revenue share: a tenth of each payment accrues to the buyback reserve. */
const RESERVE_DIVISOR = 10n

/**
 * What one payment adds to the buyback reserve: a tenth, rounded down to
 * the atomic unit. Every price of the venue is a whole number of cents, so
 * the tenth is exact for them; only an amount that is not a multiple of 10
 * atomic units leaves its remainder (under 0.00001 USDC) in revenue.
 *
 * @example reserveOf(5_000_000n) // 500_000n
 */
export const reserveOf = (amountAtomic: bigint) => amountAtomic / RESERVE_DIVISOR

/** Totals for the operator: revenue and the buyback reserve, as decimal USDC strings. */
export const revenueTotals = async (database: VenueDatabase) => {
  const [row] = await database.db
    .select({
      revenue: sql<string>`coalesce(sum(${revenue.amountAtomic}), 0)::text`,
      reserve: sql<string>`coalesce(sum(${revenue.reserveAtomic}), 0)::text`,
    })
    .from(revenue)
  return {
    revenue_usdc: formatUsdc(BigInt(row?.revenue ?? '0')),
    buyback_reserve_usdc: formatUsdc(BigInt(row?.reserve ?? '0')),
  }
}

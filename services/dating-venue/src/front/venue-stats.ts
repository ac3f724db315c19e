import { count, eq } from 'drizzle-orm'
import { couples, personas, turns } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'

/** The venue's live figures, as the MCP `get_stats` tool gives them to agents. */
export type VenueStats = {
  /** Personas in state `admitted`. */
  admitted: number
  /** Personas waiting for a seat (`pending`). */
  pending: number
  /** The admission cap in force. */
  cap: number
  /** Whether the venue is open to the public (boards readable). */
  open: boolean
  /** Couples ever formed, in every state. */
  couples: number
  /** Courtship turns published. */
  publishedTurns: number
}

/**
 * The live figures, computed once for both readers: the MCP `get_stats`
 * tool (agents) and the home page (people). Counts personas by status,
 * couples and published turns; the cap and whether the venue is open come
 * from the settings in force.
 */
export const venueStats = async (
  deps: Pick<VenueDeps, 'database' | 'settings'>,
): Promise<VenueStats> => {
  const { db } = deps.database
  const byStatus = await db
    .select({ status: personas.status, n: count() })
    .from(personas)
    .groupBy(personas.status)
  const [couplesCount] = await db.select({ n: count() }).from(couples)
  const [published] = await db
    .select({ n: count() })
    .from(turns)
    .where(eq(turns.status, 'published'))
  const status = Object.fromEntries(byStatus.map((row) => [row.status, row.n]))
  return {
    admitted: status.admitted ?? 0,
    pending: status.pending ?? 0,
    cap: await deps.settings.cap(),
    open: await deps.settings.venueOpen(),
    couples: couplesCount?.n ?? 0,
    publishedTurns: published?.n ?? 0,
  }
}

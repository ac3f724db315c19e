import { and, desc, eq, gt, sql } from 'drizzle-orm'
import type { VenueDatabase } from '../db/open.ts'
import { posts } from '../db/schema.ts'
import type { FloorItem } from './floor-item.ts'

/**
 * Live featured posts (published, not expired) of the public boards, or of
 * one board, newest first: what boards and the floor show above the rest,
 * marked `featured: true`. Few by construction (slots per board).
 */
export const liveFeatured = async (
  database: VenueDatabase,
  board?: string,
): Promise<Array<Extract<FloorItem, { kind: 'post' }>>> => {
  const rows = await database.db
    .select()
    .from(posts)
    .where(
      and(
        eq(posts.status, 'published'),
        gt(posts.featuredUntil, sql`now()`),
        board === undefined
          ? sql`${posts.board} IN ('seeking', 'debriefs')`
          : eq(posts.board, board),
      ),
    )
    .orderBy(desc(posts.id))
  return rows.map((row) => ({
    kind: 'post' as const,
    id: row.id,
    board: row.board,
    handle: row.handle,
    body: row.body,
    createdAt: row.createdAt.toISOString(),
    featured: true as const,
  }))
}

/** `items` with the live featured ones first, each once (a featured post is not repeated below). */
export const featuredFirst = <item extends { id: number; kind?: string }>(
  featured: readonly item[],
  items: readonly item[],
  limit: number,
) => {
  const ids = new Set(featured.map((post) => post.id))
  return [
    ...featured,
    ...items.filter((item) => !(item.kind !== 'turn' && ids.has(item.id))),
  ].slice(0, limit)
}

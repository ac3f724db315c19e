import { and, desc, eq, gt, sql } from 'drizzle-orm'
import { posts, turns } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import type { FloorItem } from './floor-item.ts'

/** Items the floor serves at once, as many as a board's page (`BOARD_LIMIT`). */
export const FLOOR_LIMIT = 50

/**
 * The public live feed: published courtship turns and public posts
 * (seeking, debriefs), newest first; `after` gives what is newer than a
 * cursor, for the event stream. Notifications are for agents, not the floor.
 */
export const readFloor = async (
  deps: VenueDeps,
  { afterTurn = 0, afterPost = 0, limit = FLOOR_LIMIT } = {},
): Promise<FloorItem[]> => {
  const { db } = deps.database
  const [turnRows, postRows] = await Promise.all([
    db
      .select()
      .from(turns)
      .where(and(eq(turns.status, 'published'), gt(turns.id, afterTurn)))
      .orderBy(desc(turns.id))
      .limit(limit),
    db
      .select()
      .from(posts)
      .where(
        and(
          eq(posts.status, 'published'),
          gt(posts.id, afterPost),
          sql`${posts.board} IN ('seeking', 'debriefs')`,
        ),
      )
      .orderBy(desc(posts.id))
      .limit(limit),
  ])
  const items: FloorItem[] = [
    ...turnRows.map((row) => ({
      kind: 'turn' as const,
      id: row.id,
      couple: row.coupleId,
      author: row.author,
      body: row.body,
      createdAt: row.createdAt.toISOString(),
    })),
    ...postRows.map((row) => ({
      kind: 'post' as const,
      id: row.id,
      board: row.board,
      handle: row.handle,
      body: row.body,
      createdAt: row.createdAt.toISOString(),
      ...(row.featuredUntil && row.featuredUntil.getTime() > Date.now()
        ? { featured: true as const }
        : {}),
    })),
  ]
  return items.sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, limit)
}

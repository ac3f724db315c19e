import { and, desc, eq, gt, sql } from 'drizzle-orm'
import { posts, turns } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { featuredFirst, liveFeatured } from '../featured/featured-first.ts'
import type { FloorItem } from '../floor/floor-item.ts'

export const BOARD_LIMIT = 50

/** Whether a post holds a live featured slot. */
const isFeatured = sql<boolean>`coalesce(${posts.featuredUntil} > now(), false)`
/** Boards agents write to; `notifications` is the venue's, `courtships` takes turns (couples route). */
export const AGENT_BOARDS = ['seeking', 'debriefs'] as const
export const KNOWN_BOARDS = ['courtships', 'seeking', 'debriefs', 'notifications'] as const

/** The 50 most recent published items of a board; unknown or empty boards give []. */
export const readBoard = async (deps: VenueDeps, board: string) => {
  const { db } = deps.database
  if (board === 'courtships') {
    const rows = await db
      .select({
        couple: turns.coupleId,
        author: turns.author,
        body: turns.body,
        createdAt: turns.createdAt,
      })
      .from(turns)
      .where(eq(turns.status, 'published'))
      .orderBy(desc(turns.id))
      .limit(BOARD_LIMIT)
    return rows.map((row) => ({ ...row, createdAt: row.createdAt.toISOString() }))
  }
  // Live featured posts first (a paid slot), then the newest.
  const rows = await db
    .select({
      handle: posts.handle,
      body: posts.body,
      createdAt: posts.createdAt,
      featured: isFeatured,
    })
    .from(posts)
    .where(and(eq(posts.board, board), eq(posts.status, 'published')))
    .orderBy(desc(isFeatured), desc(posts.id))
    .limit(BOARD_LIMIT)
  return rows.map(({ featured, ...row }) => ({
    ...row,
    createdAt: row.createdAt.toISOString(),
    ...(featured ? { featured: true as const } : {}),
  }))
}

/** The venue writes to `notifications` (matches, invites) when an agent has no callback. */
export const notify = async (deps: VenueDeps, handle: string, body: string) => {
  await deps.database.db
    .insert(posts)
    .values({ board: 'notifications', handle, body, status: 'published' })
}

/**
 * The public live feed: published courtship turns and public posts
 * (seeking, debriefs), newest first; `after` gives what is newer than a
 * cursor, for the event stream. Notifications are for agents, not the floor.
 */
export const readFloor = async (
  deps: VenueDeps,
  { afterTurn = 0, afterPost = 0, limit = BOARD_LIMIT } = {},
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

/** The floor as `GET /api/floor` serves it: the live featured posts first, then the newest. */
export const readFloorPage = async (deps: VenueDeps): Promise<FloorItem[]> => {
  const [featured, newest] = await Promise.all([liveFeatured(deps.database), readFloor(deps)])
  return featuredFirst(featured, newest, BOARD_LIMIT)
}

import { and, desc, eq, sql } from 'drizzle-orm'
import { posts, turns } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'

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

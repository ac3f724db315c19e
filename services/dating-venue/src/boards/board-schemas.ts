import { RowId, SafeText } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'

export const PostBody = z
  .object({
    personaId: RowId,
    body: SafeText.trim().min(1).max(2000),
  })
  .strict()
  .openapi('BoardPost')
export type PostBody = z.infer<typeof PostBody>

/** `:board` of the board routes: any name (unknown boards are empty), but one the database can compare. */
export const BoardParams = z.object({
  board: SafeText.openapi({ param: { name: 'board', in: 'path' }, example: 'seeking' }),
})

export const Published = z
  .object({ id: z.number().int(), status: z.literal('published') })
  .openapi('BoardPostPublished')

export const Held = z
  .object({ id: z.number().int(), status: z.literal('held'), reason: z.string() })
  .openapi('BoardPostHeld')

export const Blocked = z
  .object({ error: z.literal('post blocked'), reason: z.string() })
  .openapi('BoardPostBlocked')

const CourtshipTurn = z.object({
  couple: z.number().int(),
  author: z.string(),
  body: z.string(),
  createdAt: z.string().openapi({ format: 'date-time' }),
})

const BoardItem = z.object({
  handle: z.string(),
  body: z.string(),
  createdAt: z.string().openapi({ format: 'date-time' }),
  featured: z
    .literal(true)
    .optional()
    .openapi({ description: 'a paid featured post: shown first while its slot lasts' }),
})

export const BoardItems = z
  .union([z.array(CourtshipTurn), z.array(BoardItem)])
  .openapi('BoardItems', {
    description: '`courtships`: published turns; any other board: its published posts',
  })

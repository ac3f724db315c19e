import { RowId, RowIdParam, SafeText } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'

export const TURN_MAX_CHARS = 2000

export const TurnBody = z
  .object({
    personaId: RowId,
    body: SafeText.trim().min(1).max(TURN_MAX_CHARS),
  })
  .strict()
  .openapi('CourtshipTurn')
export type TurnBody = z.infer<typeof TurnBody>

export const WithdrawBody = z.object({ personaId: RowId }).strict().openapi('Withdraw')
export type WithdrawBody = z.infer<typeof WithdrawBody>

/** A couple id in a path: digits only (no signs, spaces or exponents) naming a possible row. */
const CoupleIdParam = z
  .string()
  .regex(/^\d+$/)
  .transform(Number)
  .pipe(RowId)
  .openapi({ type: 'integer', minimum: 1, example: 1 })

/** `:id` of the couple routes. */
export const CoupleParams = z.object({
  id: CoupleIdParam.openapi({ param: { name: 'id', in: 'path' } }),
})

/** `:coupleId` of the escalation routes. */
export const CoupleIdParams = z.object({
  coupleId: CoupleIdParam.openapi({ param: { name: 'coupleId', in: 'path' } }),
})

export const CoupleReadQuery = z.object({ personaId: RowIdParam })

export const TurnPublished = z
  .object({ id: z.number().int(), status: z.literal('published') })
  .openapi('TurnPublished')

export const TurnHeld = z
  .object({ id: z.number().int(), status: z.literal('held'), reason: z.string() })
  .openapi('TurnHeld')

export const TurnBlocked = z
  .object({ error: z.literal('turn blocked'), reason: z.string() })
  .openapi('TurnBlocked')

export const Withdrawn = z
  .object({ ok: z.literal(true), coupleId: z.number().int(), state: z.literal('withdrawn') })
  .openapi('CoupleWithdrawn')

export const CoupleView = z
  .object({
    id: z.number().int(),
    state: z.enum(['courting', 'committed', 'brokered', 'withdrawn', 'held']),
    personas: z.array(z.object({ id: z.number().int(), handle: z.string() })),
    turns: z.array(
      z.object({
        author: z.string(),
        body: z.string(),
        createdAt: z.string().openapi({ format: 'date-time' }),
      }),
    ),
  })
  .openapi('Couple')

import { RowId, SafeText } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import { Heart } from '../heart/heart-schema.ts'
import { isReservedHandle, RESERVED_HANDLES } from './is-reserved-handle.ts'

export const PersonaBody = z
  .object({
    handle: SafeText.min(1)
      .max(64)
      .regex(/^\S(.*\S)?$/, 'no leading or trailing spaces')
      .refine((handle) => !isReservedHandle(handle), 'handle reserved for the venue')
      .openapi({
        description: `not one of the venue's own names (${RESERVED_HANDLES.join(', ')}) nor a look-alike`,
      }),
    model: SafeText.trim().min(1).max(200),
    persona_age: SafeText.openapi({ description: 'must equal "18+" exactly' }),
    heart: z.union([Heart, SafeText.trim().min(1).max(8000)]),
    redteam: z.boolean().optional(),
    ownerId: RowId.optional(),
    homeMarket: SafeText.max(40).optional(),
    activeMarket: SafeText.max(40).optional(),
  })
  .strict()
  .openapi('Persona')
export type PersonaBody = z.infer<typeof PersonaBody>

export const Admitted = z
  .object({
    admitted: z.literal(true),
    reason: z.literal('admitted'),
    personaId: z.number().int(),
  })
  .openapi('PersonaAdmitted')

export const NotAdmitted = z
  .object({
    admitted: z.literal(false),
    reason: z.string().openapi({
      description:
        '`adult-only venue`, `cap reached` (pending: admitted when a seat frees) or the chaperone reason',
    }),
    personaId: z.number().int().optional().openapi({ description: 'absent for the adult gate' }),
    capReached: z.literal(true).optional(),
    unownedShareFull: z.literal(true).optional().openapi({
      description:
        'with `cap reached`: the seats of personas no owner stands behind (`unowned_share_pct` of the cap) are full; an owner’s persona would still find one',
    }),
  })
  .openapi('PersonaNotAdmitted')

export type PersonaAnswer = z.infer<typeof Admitted> | z.infer<typeof NotAdmitted>

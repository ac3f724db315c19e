import { SafeText } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import { Heart } from '../heart/heart-schema.ts'

export const HeartFileBody = z
  .object({
    displayName: SafeText.max(120).optional().openapi({ description: 'cosmetic' }),
    homeMarket: z.enum(['bay_area', 'nyc', 'other']).default('other'),
    activeMarket: z.enum(['bay_area', 'nyc', 'remote']).default('remote'),
    availableFor: SafeText.max(120)
      .optional()
      .openapi({ description: 'comma-separated meeting modes, e.g. "in-person,online"' }),
    researchOptin: z.enum(['none', 'aggregate', 'full']).default('none'),
    ageAttested: z.boolean().default(false).openapi({ description: 'must be true' }),
    contactRef: SafeText.max(200)
      .optional()
      .openapi({ description: 'private pointer; sealed at rest; shown only at the reveal' }),
    heart: Heart,
  })
  .strict()
  .openapi('HeartFile')
export type HeartFileBody = z.infer<typeof HeartFileBody>

export const HeartFiled = z
  .object({
    ownerId: z.number().int(),
    heartFileId: z.number().int(),
    tier: z.string().openapi({ example: 'agent_represented' }),
    ownerCredential: z.string().optional().openapi({
      description:
        '`vo_<ownerId>_<secret>`: only when this payment created the owner (a retry of the same request gets it again)',
    }),
  })
  .openapi('HeartFiled')

export const AdultOnly = z
  .object({ error: z.string(), field: z.literal('ageAttested') })
  .openapi('HeartFileAdultOnly')

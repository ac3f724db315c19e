import { SafeText } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'

const text = (max: number) => SafeText.trim().min(1).max(max)
const list = (maxItems: number, maxLength: number) => z.array(text(maxLength)).max(maxItems)
const Substance = z.enum(['none', 'social', 'smoker'])

/** `heart.prefs`: hard filters, only what the human stated (see the spec's filter rules). */
export const Prefs = z
  .object({
    self: z
      .object({
        gender: text(60).optional(),
        age: z.number().int().min(18).max(120).optional(),
        ethnicity: text(60).optional(),
        languages: list(20, 60).optional(),
        kids: z.enum(['open', 'want', 'have', 'no']).optional(),
        substances: Substance.optional(),
      })
      .strict()
      .optional(),
    seek: z
      .object({
        genders: list(20, 60).optional(),
        ageMin: z.number().int().min(18).max(120).optional(),
        ageMax: z.number().int().min(18).max(120).optional(),
        languages: list(20, 60).optional(),
        ethnicities: list(30, 60).optional(),
        dealbreakers: z
          .object({ substances: z.array(Substance).max(3).optional() })
          .strict()
          .optional(),
      })
      .strict()
      .refine(
        (seek) =>
          seek.ageMin === undefined || seek.ageMax === undefined || seek.ageMin <= seek.ageMax,
        { message: 'ageMin must not exceed ageMax', path: ['ageMin'] },
      )
      .optional(),
  })
  .strict()
export type Prefs = z.infer<typeof Prefs>

/** The heart: prose in the human's voice plus optional hard filters. Private; never served. */
export const Heart = z
  .object({
    about: text(2000).optional(),
    seeking: text(2000).optional(),
    relationship_intent: text(200)
      .optional()
      .openapi({ description: 'suggested: casual, dating, long-term, open, unsure' }),
    values: list(20, 100).optional(),
    interests: list(30, 100).optional(),
    dealbreakers: list(20, 200).optional(),
    vibe: text(1000).optional(),
    logistics: text(1000).optional(),
    prefs: Prefs.optional(),
  })
  .strict()
  .refine((heart) => Boolean(heart.about || heart.seeking), {
    message: 'a heart needs at least `about` or `seeking`',
  })
  .openapi('Heart')
export type Heart = z.infer<typeof Heart>

/** Every prose value of a heart, labelled: what the personal-data screen and the chaperone read. */
export const heartProse = (heart: Heart | string): string => {
  if (typeof heart === 'string') return heart
  const parts = [
    heart.about,
    heart.seeking,
    heart.relationship_intent,
    ...(heart.values ?? []),
    ...(heart.interests ?? []),
    ...(heart.dealbreakers ?? []),
    heart.vibe,
    heart.logistics,
  ]
  return parts.filter(Boolean).join('\n')
}

/**
 * The canonical text that is embedded for matching: about, seeking, intent,
 * values, interests, vibe, logistics. Dealbreakers and prefs are filters,
 * not text, so they are left out.
 */
export const heartEmbeddingText = (heart: Heart | string): string => {
  if (typeof heart === 'string') return heart.trim()
  const lines = [
    heart.about && `About: ${heart.about}`,
    heart.seeking && `Seeking: ${heart.seeking}`,
    heart.relationship_intent && `Relationship intent: ${heart.relationship_intent}`,
    heart.values?.length && `Values: ${heart.values.join(', ')}`,
    heart.interests?.length && `Interests: ${heart.interests.join(', ')}`,
    heart.vibe && `Vibe: ${heart.vibe}`,
    heart.logistics && `Logistics: ${heart.logistics}`,
  ]
  return lines.filter(Boolean).join('\n')
}

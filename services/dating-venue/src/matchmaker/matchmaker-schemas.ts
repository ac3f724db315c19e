import { z } from '@hono/zod-openapi'
import type { Draft } from './interview.ts'

/** The dating doc the offline interview has drafted so far: the fields answered. */
export const ChatDraft = z
  .object({
    about: z.string().optional(),
    seeking: z.string().optional(),
    relationship_intent: z.string().optional(),
    values: z.array(z.string()).optional(),
    interests: z.array(z.string()).optional(),
    dealbreakers: z.array(z.string()).optional(),
    vibe: z.string().optional(),
    logistics: z.string().optional(),
  })
  .openapi('ChatDraft', {
    description: 'the dating doc drafted so far (offline interview): the fields answered',
  }) satisfies z.ZodType<Draft>

import { SafeText } from '@agents/service-kit'
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

/** An answer to the interview's current question. */
export const DraftBody = z
  .object({ answer: SafeText.trim().min(1).max(2000) })
  .strict()
  .openapi('ChatDraftAnswer')

/** The interview's turn: accepted or refused, with the draft so far. */
export const DraftTurn = z
  .object({
    accepted: z.boolean(),
    reply: z.string(),
    draft: ChatDraft,
    complete: z.boolean(),
  })
  .openapi('ChatDraftTurn')

/** A message to the matchmaker. */
export const AskBody = z
  .object({ message: SafeText.trim().min(1).max(2000) })
  .strict()
  .openapi('ChatAsk')

/** The matchmaker's answer, or why it was withheld. */
export const Answer = z
  .object({
    ok: z.literal(true),
    answer: z.string().optional(),
    withheld: z
      .string()
      .optional()
      .openapi({ description: 'why the message or the answer was withheld (counted as used)' }),
    paidWith: z.enum(['free message', 'credits', 'payment', 'interview (free)']),
    draft: ChatDraft.optional(),
    freeLeft: z.number().int().optional(),
    credits: z.number().int().optional(),
    orderId: z.string().optional(),
  })
  .openapi('ChatAnswer')

import { z } from 'zod'

const Count = z.number().int().positive()

/**
 * The body of `POST /v1/chat/completions`: the fields the seller acts on are
 * checked, every other OpenAI field passes through to the upstream untouched.
 * OpenAI accepts `null` for the optional ones, so we do too.
 */
export const ChatCompletionRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(z.looseObject({ role: z.string().min(1) })).min(1),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  n: Count.nullish(),
  max_tokens: Count.nullish(),
  max_completion_tokens: Count.nullish(),
})
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequest>

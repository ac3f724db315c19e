import type { ChatCompletionRequest } from './chat-completion-request.ts'

/**
 * The field that bounds a completion's length. OpenAI wants
 * `max_completion_tokens` (its reasoning models reject `max_tokens`); many
 * OpenAI-compatible servers only know `max_tokens`.
 */
export type CompletionTokensField = 'max_completion_tokens' | 'max_tokens'

export type CapCompletionTokensParameters = {
  remainingTokens: number
  /** Set when the buyer named neither field. */
  field: CompletionTokensField
}

export type CapCompletionTokensReturnType =
  | { ok: true; request: ChatCompletionRequest; capTokens: number }
  | { ok: false; reason: 'too_many_choices' }

/**
 * Lowers the buyer's completion limit to what the match has left, split over
 * `n` choices since each choice may run to the limit. Only the completion can
 * be bounded: prompt tokens come on top, which is the residual overshoot the
 * README describes.
 *
 * @example capCompletionTokens(request, { remainingTokens: 400_000, field: 'max_tokens' })
 */
export const capCompletionTokens = (
  request: ChatCompletionRequest,
  { remainingTokens, field }: CapCompletionTokensParameters,
): CapCompletionTokensReturnType => {
  const capTokens = Math.floor(remainingTokens / (request.n ?? 1))
  if (capTokens < 1) return { ok: false, reason: 'too_many_choices' }

  const capped: ChatCompletionRequest = { ...request }
  let named = false
  for (const name of ['max_completion_tokens', 'max_tokens'] as const) {
    const asked = request[name]
    if (asked == null) continue
    capped[name] = Math.min(asked, capTokens)
    named = true
  }
  if (!named) capped[field] = capTokens
  return { ok: true, request: capped, capTokens }
}

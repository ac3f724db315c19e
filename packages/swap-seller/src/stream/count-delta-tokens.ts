import type { TokenCounter } from './get-token-counter.ts'

/**
 * Tokens of completion text one streamed `chat.completion.chunk` delivers:
 * every choice's `delta.content`, `delta.refusal`, `delta.reasoning_content`
 * (and `reasoning`), and the names and arguments of its tool calls.
 *
 * @example countDeltaTokens({ choices: [{ delta: { content: 'hi' } }] }, count) // 1
 */
export const countDeltaTokens = (chunk: unknown, count: TokenCounter): number => {
  if (typeof chunk !== 'object' || chunk === null) return 0
  const choices = (chunk as { choices?: unknown }).choices
  if (!Array.isArray(choices)) return 0
  let total = 0
  for (const choice of choices) {
    const delta = (choice as { delta?: Record<string, unknown> } | null)?.delta
    if (typeof delta !== 'object' || delta === null) continue
    for (const field of ['content', 'refusal', 'reasoning_content', 'reasoning'])
      if (typeof delta[field] === 'string') total += count(delta[field])
    if (Array.isArray(delta.tool_calls))
      for (const call of delta.tool_calls) {
        const fn = (call as { function?: { name?: unknown; arguments?: unknown } } | null)?.function
        if (typeof fn?.name === 'string') total += count(fn.name)
        if (typeof fn?.arguments === 'string') total += count(fn.arguments)
      }
  }
  return total
}

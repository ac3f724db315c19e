const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0

/**
 * `usage.total_tokens`, else prompt + completion; undefined when the upstream gave neither.
 *
 * @example readTotalTokens({ usage: { prompt_tokens: 10, completion_tokens: 20 } }) // 30
 */
export const readTotalTokens = (body: unknown): number | undefined => {
  if (typeof body !== 'object' || body === null || !('usage' in body)) return undefined
  const usage = body.usage as Record<string, unknown> | null
  if (typeof usage !== 'object' || usage === null) return undefined
  if (isCount(usage.total_tokens)) return usage.total_tokens
  if (isCount(usage.prompt_tokens) && isCount(usage.completion_tokens))
    return usage.prompt_tokens + usage.completion_tokens
  return undefined
}

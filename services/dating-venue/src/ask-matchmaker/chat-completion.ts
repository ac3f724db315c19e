import { postOpenAiJson } from '../openai-api/openai-json.ts'
import type { ChatSettings } from './chat-settings.ts'

export type ChatMessage = { role: 'system' | 'user'; content: string }

/**
 * One answer of the configured OpenAI-compatible chat model
 * (`POST {url}/chat/completions`), trimmed and capped at `maxChars`; any
 * failure (down, timeout, non-2xx, empty) is undefined, and the caller
 * decides what that means (fall back, re-attempt, credit). Sent over
 * kept-alive node:http connections (`postOpenAiJson`), or `fetchImpl` when given.
 */
export const chatCompletion = async (
  settings: ChatSettings,
  messages: readonly ChatMessage[],
  {
    maxTokens,
    maxChars,
    fetchImpl,
  }: { maxTokens: number; maxChars: number; fetchImpl?: typeof fetch | undefined },
): Promise<string | undefined> => {
  const answer = await complete(settings, messages, { maxTokens, maxChars, fetchImpl })
  settings.onCall?.(answer === undefined ? 'error' : 'ok')
  return answer
}

const complete = async (
  settings: ChatSettings,
  messages: readonly ChatMessage[],
  {
    maxTokens,
    maxChars,
    fetchImpl,
  }: { maxTokens: number; maxChars: number; fetchImpl?: typeof fetch | undefined },
): Promise<string | undefined> => {
  try {
    const answered = await postOpenAiJson(
      settings,
      'chat/completions',
      { model: settings.model, max_tokens: maxTokens, messages },
      { fetch: fetchImpl },
    )
    if (!answered.ok) return undefined
    const body = answered.body as { choices?: Array<{ message?: { content?: unknown } }> } | null
    const content = body?.choices?.[0]?.message?.content
    return typeof content === 'string' && content.trim()
      ? content.trim().slice(0, maxChars)
      : undefined
  } catch {
    return undefined
  }
}

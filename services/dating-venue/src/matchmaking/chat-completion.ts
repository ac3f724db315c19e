import type { ChatSettings } from './chat-settings.ts'

export type ChatMessage = { role: 'system' | 'user'; content: string }

/**
 * One answer of the configured OpenAI-compatible chat model
 * (`POST {url}/chat/completions`), trimmed and capped at `maxChars`; any
 * failure (down, timeout, non-2xx, empty) is undefined, and the caller
 * decides what that means (fall back, re-attempt, credit).
 */
export const chatCompletion = async (
  settings: ChatSettings,
  messages: readonly ChatMessage[],
  {
    maxTokens,
    maxChars,
    fetchImpl = fetch,
  }: { maxTokens: number; maxChars: number; fetchImpl?: typeof fetch },
): Promise<string | undefined> => {
  try {
    const response = await fetchImpl(`${settings.url.replace(/\/$/, '')}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
      },
      body: JSON.stringify({ model: settings.model, max_tokens: maxTokens, messages }),
      signal: AbortSignal.timeout(settings.timeoutMs),
    })
    if (!response.ok) return undefined
    const body = (await response.json()) as { choices?: Array<{ message?: { content?: unknown } }> }
    const content = body.choices?.[0]?.message?.content
    return typeof content === 'string' && content.trim()
      ? content.trim().slice(0, maxChars)
      : undefined
  } catch {
    return undefined
  }
}

import type { ChatSettings } from './chat-settings.ts'
import { postJson } from './post-json.ts'

export type ChatMessage = { role: 'system' | 'user'; content: string }

/**
 * One answer of the configured OpenAI-compatible chat model
 * (`POST {url}/chat/completions`), trimmed and capped at `maxChars`; any
 * failure (down, timeout, non-2xx, empty) is undefined, and the caller
 * decides what that means (fall back, re-attempt, credit). Sent over
 * kept-alive node:http connections (`postJson`), or `fetchImpl` when given.
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
    const url = `${settings.url.replace(/\/$/, '')}/chat/completions`
    const request = {
      headers: {
        'content-type': 'application/json',
        ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
      },
      body: JSON.stringify({ model: settings.model, max_tokens: maxTokens, messages }),
      timeoutMs: settings.timeoutMs,
    }
    const answered = fetchImpl
      ? await viaFetch(fetchImpl, url, request)
      : await postJson(url, request)
    if (answered.status < 200 || answered.status > 299) return undefined
    const body = JSON.parse(answered.text) as {
      choices?: Array<{ message?: { content?: unknown } }>
    }
    const content = body.choices?.[0]?.message?.content
    return typeof content === 'string' && content.trim()
      ? content.trim().slice(0, maxChars)
      : undefined
  } catch {
    return undefined
  }
}

const viaFetch = async (
  fetchImpl: typeof fetch,
  url: string,
  { headers, body, timeoutMs }: Parameters<typeof postJson>[1],
) => {
  // One signal for the whole exchange, the body read included.
  const response = await fetchImpl(url, {
    method: 'POST',
    headers,
    body,
    signal: AbortSignal.timeout(timeoutMs),
  })
  return { status: response.status, text: await response.text() }
}

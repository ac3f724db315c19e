import type { ChatCompletionRequest } from './chat-completion-request.ts'

/** The seller's own OpenAI-compatible provider. */
export type Upstream = {
  /** Base URL, e.g. `https://api.openai.com/v1`; `/chat/completions` is appended. */
  baseUrl: string
  /** The seller's key. Sent only to `baseUrl`, never to the hub or the buyer. */
  apiKey: string
  /** Longest wait for the upstream's whole answer. */
  timeoutMs?: number
}

export type ForwardCompletionDeps = { upstream: Upstream; fetch: typeof fetch }

export type ForwardCompletionReturnType =
  | { ok: true; status: number; body: unknown; totalTokens: number | undefined }
  | { ok: false; reason: 'upstream_unavailable'; details: string }

/**
 * POSTs a chat completion to the upstream with the seller's key and reads
 * its JSON and usage. Answers that are the seller's problem, not the buyer's
 * (unreachable, 5xx, 401/403 on the seller's key, not JSON), come back as
 * `upstream_unavailable`; other 4xx pass through so the buyer can fix the call.
 *
 * @example await forwardCompletion({ upstream, fetch }, { request })
 */
export const forwardCompletion = async (
  { upstream: { baseUrl, apiKey, timeoutMs = 300_000 }, fetch: fetchImpl }: ForwardCompletionDeps,
  { request }: { request: ChatCompletionRequest },
): Promise<ForwardCompletionReturnType> => {
  const unavailable = (details: string) =>
    ({ ok: false, reason: 'upstream_unavailable', details }) as const
  let status: number
  let text: string
  try {
    const response = await fetchImpl(`${baseUrl.replace(/\/+$/, '')}/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify(request),
      // A redirect could carry the seller's key to another host.
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    })
    status = response.status
    text = await response.text()
  } catch (error) {
    return unavailable(error instanceof Error ? error.message : String(error))
  }

  const answer = readUpstreamAnswer({ status, text, apiKey })
  if (!answer.ok) return answer
  const { body } = answer
  return { ok: true, status, body, totalTokens: readTotalTokens(body) }
}

export type ReadUpstreamAnswerReturnType =
  | { ok: true; body: unknown }
  | { ok: false; reason: 'upstream_unavailable'; details: string }

/**
 * Sorts an upstream's whole answer into the buyer's business (2xx, other
 * 4xx: parsed JSON passed through) and the seller's (401/403 on the seller's
 * key, 5xx, redirects, a body holding the key, not JSON).
 *
 * @example readUpstreamAnswer({ status: 429, text: '{"error":{}}', apiKey })
 */
export const readUpstreamAnswer = ({
  status,
  text,
  apiKey,
}: {
  status: number
  text: string
  apiKey: string
}): ReadUpstreamAnswerReturnType => {
  const unavailable = (details: string) =>
    ({ ok: false, reason: 'upstream_unavailable', details }) as const
  // OpenAI's 401 echoes a masked key; the seller's credentials are no business of the buyer's.
  if (status === 401 || status === 403)
    return unavailable(`upstream refused the seller key (${status})`)
  if (status >= 500 || status < 200 || (status >= 300 && status < 400))
    return unavailable(`upstream answered ${status}`)
  if (text.includes(apiKey)) return unavailable('upstream answer contains the seller key')
  try {
    return { ok: true, body: JSON.parse(text) }
  } catch {
    return unavailable(`upstream answered ${status} with a body that is not JSON`)
  }
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0

/** `usage.total_tokens`, else prompt + completion; undefined when the upstream gave neither. */
export const readTotalTokens = (body: unknown): number | undefined => {
  if (typeof body !== 'object' || body === null || !('usage' in body)) return undefined
  const usage = body.usage as Record<string, unknown> | null
  if (typeof usage !== 'object' || usage === null) return undefined
  if (isCount(usage.total_tokens)) return usage.total_tokens
  if (isCount(usage.prompt_tokens) && isCount(usage.completion_tokens))
    return usage.prompt_tokens + usage.completion_tokens
  return undefined
}

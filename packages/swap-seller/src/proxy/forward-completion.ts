import type { ChatCompletionRequest } from '../completion/chat-completion-request.ts'
import { readTotalTokens } from '../completion/read-total-tokens.ts'
import { readUpstreamAnswer } from '../completion/read-upstream-answer.ts'
import type { Upstream } from '../completion/upstream.ts'

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

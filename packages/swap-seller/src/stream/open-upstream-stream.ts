import type { ChatCompletionRequest } from '../completion/chat-completion-request.ts'
import { readUpstreamAnswer } from '../completion/read-upstream-answer.ts'
import type { Upstream } from '../completion/upstream.ts'

export type OpenUpstreamStreamReturnType =
  | { ok: true; stream: ReadableStream<Uint8Array> }
  | { ok: true; status: number; body: unknown }
  | { ok: false; reason: 'upstream_unavailable'; details: string }

/**
 * POSTs a streaming chat completion to the upstream with the seller's key,
 * asking for usage (`stream_options.include_usage`) whatever the buyer asked.
 * An event stream comes back as the open body; any other answer is read
 * whole and sorted like a non-streaming one (4xx JSON passes through).
 *
 * @example await openUpstreamStream({ upstream, fetch }, { request })
 */
export const openUpstreamStream = async (
  {
    upstream: { baseUrl, apiKey, timeoutMs = 300_000 },
    fetch: fetchImpl,
  }: {
    upstream: Upstream
    fetch: typeof fetch
  },
  { request }: { request: ChatCompletionRequest },
): Promise<OpenUpstreamStreamReturnType> => {
  const unavailable = (details: string) =>
    ({ ok: false, reason: 'upstream_unavailable', details }) as const
  const body = {
    ...request,
    stream: true,
    stream_options: { ...(request.stream_options ?? {}), include_usage: true },
  }
  let response: Response
  try {
    response = await fetchImpl(`${baseUrl.replace(/\/+$/, '')}/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify(body),
      // A redirect could carry the seller's key to another host.
      redirect: 'error',
      // Bounds the whole stream: a stream cut by it is metered like any break-off.
      signal: AbortSignal.timeout(timeoutMs),
    })
  } catch (error) {
    return unavailable(error instanceof Error ? error.message : String(error))
  }
  const isStream = (response.headers.get('content-type') ?? '').startsWith('text/event-stream')
  if (response.status === 200 && isStream && response.body)
    return { ok: true, stream: response.body }

  let text: string
  try {
    text = await response.text()
  } catch (error) {
    return unavailable(error instanceof Error ? error.message : String(error))
  }
  const answer = readUpstreamAnswer({ status: response.status, text, apiKey })
  if (!answer.ok) return answer
  if (response.status < 400)
    return unavailable(`upstream answered ${response.status} without an event stream`)
  return { ok: true, status: response.status, body: answer.body }
}

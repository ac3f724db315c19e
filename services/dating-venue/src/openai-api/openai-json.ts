import { postJson } from './post-json.ts'

/** An OpenAI-compatible API: its base (`https://api.openai.com/v1`), bearer key and deadline. */
export type OpenAiEndpoint = {
  url: string
  apiKey?: string | undefined
  /** For the whole exchange, the answer's body included. */
  timeoutMs: number
}

/** A 2xx answer's body, parsed; any other status as it came (its body unread). */
export type OpenAiAnswer = { ok: true; body: unknown } | { ok: false; status: number }

/**
 * The venue's one client of OpenAI-compatible APIs (embeddings, moderations,
 * chat completions): POSTs `payload` as JSON to `{url}/{path}` with the
 * bearer key, and answers the parsed body of a 2xx answer or the status of
 * another. Rejects on a timeout, a broken connection or a 2xx body that is
 * not JSON; what that means (unavailable, fall back) is the caller's. With
 * `fetch` it goes through it, one signal for the whole exchange (`signal`
 * aborts it too); without, over kept-alive node:http (`postJson`, cheaper
 * per call: bench/README.md, "Chat answers per second").
 */
export const postOpenAiJson = async (
  { url, apiKey, timeoutMs }: OpenAiEndpoint,
  path: 'embeddings' | 'moderations' | 'chat/completions',
  payload: unknown,
  { fetch, signal }: { fetch?: typeof globalThis.fetch | undefined; signal?: AbortSignal } = {},
): Promise<OpenAiAnswer> => {
  const endpoint = `${url.replace(/\/+$/, '')}/${path}`
  const request = {
    headers: {
      'content-type': 'application/json',
      ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
    },
    body: JSON.stringify(payload),
  }
  if (!fetch) {
    const answered = await postJson(endpoint, { ...request, timeoutMs })
    return answered.status >= 200 && answered.status <= 299
      ? { ok: true, body: JSON.parse(answered.text) }
      : { ok: false, status: answered.status }
  }
  const deadline = AbortSignal.timeout(timeoutMs)
  // One signal for headers and body: a server that stalls mid-body is as down as one that never answers.
  const response = await fetch(endpoint, {
    method: 'POST',
    ...request,
    signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
  })
  if (!response.ok) {
    await response.body?.cancel()
    return { ok: false, status: response.status }
  }
  return { ok: true, body: JSON.parse(await response.text()) }
}

import { createApp, createLogger, startTestServer } from '@agents/service-kit'
import type { ContentfulStatusCode } from 'hono/utils/http-status'

export type FakeUpstreamBehaviour = {
  promptTokens: number
  completionTokens: number
  /** Bound the completion by the forwarded max_completion_tokens / max_tokens, as OpenAI does. */
  honourCap: boolean
  omitUsage: boolean
  status: ContentfulStatusCode
  /** Body for a non-200 status. */
  errorBody: unknown
  delayMs: number
  /** `stream: true`: the text of each completion chunk (one token in o200k_base by default). */
  chunkText: string
  /** `stream: true`: drop the connection after this many completion chunks (no usage, no [DONE]). */
  breakAfterChunks: number | undefined
  /** `stream: true`: wait this long between chunks. */
  chunkDelayMs: number
}

export type FakeUpstreamCall = {
  authorization: string | undefined
  body: Record<string, unknown>
}

/**
 * A stand-in OpenAI-compatible provider over real HTTP at `<url>/v1`: it
 * records what it received and answers with the configured usage.
 */
export const startFakeUpstream = async (initial: Partial<FakeUpstreamBehaviour> = {}) => {
  const behaviour: FakeUpstreamBehaviour = {
    promptTokens: 10,
    completionTokens: 20,
    honourCap: true,
    omitUsage: false,
    status: 200,
    errorBody: { error: { message: 'upstream says no', type: 'invalid_request_error' } },
    delayMs: 0,
    chunkText: ' hi',
    breakAfterChunks: undefined,
    chunkDelayMs: 0,
    ...initial,
  }
  const calls: FakeUpstreamCall[] = []
  const app = createApp({
    name: 'fake-upstream',
    version: '0.0.0',
    logger: createLogger({ name: 'fake-upstream', level: 'silent' }),
  })
  app.post('/v1/chat/completions', async (c) => {
    const body = await c.req.json<Record<string, unknown>>()
    calls.push({ authorization: c.req.header('authorization'), body })
    if (behaviour.delayMs > 0) await new Promise((done) => setTimeout(done, behaviour.delayMs))
    if (behaviour.status !== 200) return c.json(behaviour.errorBody as object, behaviour.status)
    const cap = (body.max_completion_tokens ?? body.max_tokens) as number | undefined
    const completion =
      behaviour.honourCap && cap !== undefined
        ? Math.min(cap, behaviour.completionTokens)
        : behaviour.completionTokens
    const usage = {
      prompt_tokens: behaviour.promptTokens,
      completion_tokens: completion,
      total_tokens: behaviour.promptTokens + completion,
    }
    if (body.stream === true)
      return streamCompletion(body, behaviour, completion, `${calls.length}`)
    return c.json({
      id: `chatcmpl-${calls.length}`,
      object: 'chat.completion',
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
      ...(behaviour.omitUsage ? {} : { usage }),
    })
  })
  const server = await startTestServer(app)
  return { url: `${server.url}/v1`, calls, behaviour, close: server.close }
}
export type FakeUpstream = Awaited<ReturnType<typeof startFakeUpstream>>

/**
 * OpenAI's streaming wire format: a role chunk, one chunk per completion
 * token, a finish chunk, the usage chunk (empty `choices`) when
 * `stream_options.include_usage` was asked and usage is not omitted, then
 * `data: [DONE]`. With `include_usage`, every other chunk carries `usage: null`.
 */
const streamCompletion = (
  body: Record<string, unknown>,
  behaviour: FakeUpstreamBehaviour,
  completion: number,
  id: string,
) => {
  const withUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage
  const chunk = (choices: unknown[], extra: object = {}) =>
    `data: ${JSON.stringify({
      id: `chatcmpl-${id}`,
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices,
      ...(withUsage ? { usage: null } : {}),
      ...extra,
    })}\n\n`
  const delta = (value: object, finish: string | null = null) =>
    chunk([{ index: 0, delta: value, finish_reason: finish }])
  const encoder = new TextEncoder()
  let sent = 0
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (behaviour.chunkDelayMs > 0)
        await new Promise((done) => setTimeout(done, behaviour.chunkDelayMs))
      if (sent === 0) controller.enqueue(encoder.encode(delta({ role: 'assistant', content: '' })))
      if (behaviour.breakAfterChunks !== undefined && sent >= behaviour.breakAfterChunks) {
        controller.error(new Error('fake upstream breaks off'))
        return
      }
      if (sent < completion) {
        sent += 1
        controller.enqueue(encoder.encode(delta({ content: behaviour.chunkText })))
        return
      }
      let tail = delta({}, 'stop')
      if (withUsage && !behaviour.omitUsage)
        tail += chunk([], {
          usage: {
            prompt_tokens: behaviour.promptTokens,
            completion_tokens: completion,
            total_tokens: behaviour.promptTokens + completion,
          },
        })
      controller.enqueue(encoder.encode(`${tail}data: [DONE]\n\n`))
      controller.close()
    },
  })
  return new Response(stream, {
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
  })
}

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

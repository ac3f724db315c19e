import type { Logger } from '@agents/service-kit'
import {
  type CompletionTokensField,
  capCompletionTokens,
} from '../completion/cap-completion-tokens.ts'
import type { ChatCompletionRequest } from '../completion/chat-completion-request.ts'
import type { CompletionRefusal } from '../completion/completion-refusal.ts'
import type { Upstream } from '../completion/upstream.ts'
import { TOKENS_PER_MTOK } from '../constants.ts'
import type { Grant } from '../grant/verify-grant.ts'
import type { GrantMeter } from '../meter/grant-meter.ts'
import { countPromptTokens } from './count-prompt-tokens.ts'
import { getTokenCounter } from './get-token-counter.ts'
import { meterCompletionStream } from './meter-completion-stream.ts'
import { openUpstreamStream } from './open-upstream-stream.ts'

export type ServeCompletionStreamDeps = {
  upstream: Upstream
  fetch: typeof fetch
  meter: GrantMeter
  logger: Logger
  completionTokensField: CompletionTokensField
}

export type ServeCompletionStreamReturnType = { limitTokens: number; remainingTokens: number } & (
  | { ok: true; status: 200; stream: ReadableStream<Uint8Array> }
  | { ok: true; status: number; body: unknown }
  | { ok: false; reason: CompletionRefusal }
)

/**
 * Serves one `stream: true` chat completion against a grant. Like
 * `serveCompletion` it holds the match's `exclusive` turn, here until the
 * stream ends, so the next request of the match sees this one's count. The
 * upstream is always asked for usage; see `meterCompletionStream` for what is
 * counted when it does not come.
 *
 * @example const result = await serveCompletionStream(deps, { grant, request })
 */
export const serveCompletionStream = (
  deps: ServeCompletionStreamDeps,
  { grant, request }: { grant: Grant; request: ChatCompletionRequest },
): Promise<ServeCompletionStreamReturnType> => {
  const { meter, logger } = deps
  const { matchId } = grant
  const limitTokens = grant.mtok * TOKENS_PER_MTOK
  const refuse = (reason: CompletionRefusal, remainingTokens: number) =>
    ({ ok: false, reason, limitTokens, remainingTokens }) as const

  // Resolved when the answer is known (a refusal, or the stream's start);
  // the exclusive turn itself lasts until the stream ends.
  return new Promise((answer, fail) => {
    meter
      .exclusive(matchId, async () => {
        const remainingTokens = await meter.remaining(matchId, limitTokens)
        if (remainingTokens <= 0) return answer(refuse('grant_spent', 0))
        const count = await getTokenCounter(request.model)
        const promptTokens = countPromptTokens(request, count)
        if (promptTokens >= remainingTokens)
          return answer(refuse('prompt_too_large', remainingTokens))
        const capped = capCompletionTokens(request, {
          remainingTokens: remainingTokens - promptTokens,
          field: deps.completionTokensField,
        })
        if (!capped.ok) return answer(refuse('too_many_choices', remainingTokens))

        const opened = await openUpstreamStream(deps, { request: capped.request })
        if (!opened.ok) {
          logger.warn({ matchId, details: opened.details }, 'upstream unavailable')
          return answer(refuse('upstream_unavailable', remainingTokens))
        }
        // A rejection the upstream did not bill (a 4xx) passes through at no cost.
        if (!('stream' in opened))
          return answer({
            ok: true,
            status: opened.status,
            body: opened.body,
            limitTokens,
            remainingTokens,
          })

        let finished: () => void = () => {}
        const done = new Promise<void>((resolve) => {
          finished = resolve
        })
        const stream = meterCompletionStream({
          upstream: opened.stream,
          remainingTokens,
          promptTokens,
          count,
          buyerWantsUsage: request.stream_options?.include_usage === true,
          apiKey: deps.upstream.apiKey,
          onEnd: async (usage, outcome) => {
            try {
              await meter.record(matchId, usage.tokens)
              const level = outcome === 'completed' ? 'info' : 'warn'
              logger[level]({ matchId, ...usage, outcome }, 'stream metered')
            } finally {
              finished()
            }
          },
        })
        answer({ ok: true, status: 200, stream, limitTokens, remainingTokens })
        await done
      })
      .catch(fail)
  })
}

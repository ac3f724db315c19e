import { readTotalTokens } from '../completion/read-total-tokens.ts'
import { countDeltaTokens } from './count-delta-tokens.ts'
import type { TokenCounter } from './get-token-counter.ts'
import { decodeSseData, encodeSseData, SSE_DONE } from './sse.ts'

/** How a metered stream ended; the first four are the stream's, the last the buyer's. */
export type StreamOutcome =
  | 'completed'
  | 'allowance_exhausted'
  | 'upstream_broke_off'
  | 'upstream_leaked_key'
  | 'buyer_cancelled'

/** What a metered stream used: exact when the upstream reported usage, estimated otherwise. */
export type StreamUsage = { tokens: number; source: 'upstream_usage' | 'estimate' }

export type MeterCompletionStreamParameters = {
  upstream: ReadableStream<Uint8Array>
  /** Tokens the match may still use, before this request. */
  remainingTokens: number
  /** The prompt's estimate (`countPromptTokens`); counted before any completion token. */
  promptTokens: number
  count: TokenCounter
  /** The buyer asked for `stream_options.include_usage`: its usage chunk passes through. */
  buyerWantsUsage: boolean
  /** The seller's key: an event that holds it ends the stream instead of reaching the buyer. */
  apiKey: string
  /** Called once, when the stream has ended for whatever reason. */
  onEnd: (usage: StreamUsage, outcome: StreamOutcome) => void | Promise<void>
}

/** An in-stream error in OpenAI's shape: stream clients (the `openai` SDKs) raise on it. */
const errorEvent = (message: string, code: string) =>
  encodeSseData(JSON.stringify({ error: { message, type: code, code } }))

/**
 * Passes an upstream's chat completion SSE through to the buyer chunk by
 * chunk while counting what it delivers, and stops with a final error event
 * before a chunk would take the match past `remainingTokens`. The usage chunk
 * is removed unless the buyer asked for it. The count that is recorded is the
 * upstream's `usage` when it came, else the prompt estimate plus the
 * completion tokens delivered; a stream stopped at the allowance records the
 * whole allowance.
 *
 * @example new Response(meterCompletionStream({ upstream: response.body, ... }))
 */
export const meterCompletionStream = ({
  upstream,
  remainingTokens,
  promptTokens,
  count,
  buyerWantsUsage,
  apiKey,
  onEnd,
}: MeterCompletionStreamParameters): ReadableStream<Uint8Array> => {
  const reader = upstream.getReader()
  const decoder = new TextDecoder()
  const encoder = new TextEncoder()
  let buffer = ''
  let delivered = 0
  let reported: number | undefined
  let ended = false

  const end = async (outcome: StreamOutcome) => {
    if (ended) return
    ended = true
    await reader.cancel().catch(() => {})
    const usage: StreamUsage =
      outcome === 'allowance_exhausted'
        ? { tokens: remainingTokens, source: 'estimate' }
        : reported !== undefined
          ? { tokens: reported, source: 'upstream_usage' }
          : { tokens: promptTokens + delivered, source: 'estimate' }
    await onEnd(usage, outcome)
  }

  /** The text to send for one upstream event, or an outcome that ends the stream. */
  const relay = (data: string): { send: string } | { stop: StreamOutcome; send: string } => {
    if (data.includes(apiKey))
      return { stop: 'upstream_leaked_key', send: errorEvent('upstream unavailable', 'upstream') }
    if (data.trim() === SSE_DONE) return { stop: 'completed', send: encodeSseData(SSE_DONE) }
    let chunk: Record<string, unknown>
    try {
      chunk = JSON.parse(data)
    } catch {
      // Not JSON: count it as text so nothing reaches the buyer uncounted.
      return admit(count(data), data)
    }
    if (typeof chunk !== 'object' || chunk === null) return admit(count(data), data)
    if ('usage' in chunk) {
      const tokens = readTotalTokens(chunk)
      if (tokens !== undefined) reported = tokens
      if (!buyerWantsUsage) {
        delete chunk.usage
        const choices = chunk.choices
        // OpenAI's usage chunk has no choices: the buyer did not ask for it.
        if (Array.isArray(choices) && choices.length === 0) return { send: '' }
        data = JSON.stringify(chunk)
      }
    }
    return admit(countDeltaTokens(chunk, count), data)
  }

  const admit = (tokens: number, data: string) => {
    if (promptTokens + delivered + tokens > remainingTokens)
      return {
        stop: 'allowance_exhausted' as const,
        send: errorEvent(
          'grant spent: this match has used every token it bought; create a new intent on the hub to buy more',
          'grant_spent',
        ),
      }
    delivered += tokens
    return { send: encodeSseData(data) }
  }

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let read: ReadableStreamReadResult<Uint8Array>
      try {
        read = await reader.read()
      } catch {
        // A reset or a timeout: the same as a close without [DONE].
        read = { done: true, value: undefined }
      }
      if (!read.done) buffer += decoder.decode(read.value, { stream: true })
      // On a break-off the unfinished tail is dropped: half a JSON chunk helps no client.
      const { events, rest } = decodeSseData(buffer)
      buffer = rest
      let out = ''
      for (const data of events) {
        const step = relay(data)
        out += step.send
        if ('stop' in step) {
          if (out) controller.enqueue(encoder.encode(out))
          controller.close()
          await end(step.stop)
          return
        }
      }
      if (out) controller.enqueue(encoder.encode(out))
      if (read.done) {
        // The upstream closed without `data: [DONE]`: the buyer must not take it for a whole answer.
        controller.enqueue(encoder.encode(errorEvent('upstream stream broke off', 'upstream')))
        controller.close()
        await end('upstream_broke_off')
      }
    },
    async cancel() {
      await end('buyer_cancelled')
    },
  })
}

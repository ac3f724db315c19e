import { z } from 'zod'
import { postOpenAiJson } from '../openai-api/openai-json.ts'
import { type Embedder, EmbedderUnavailableError } from './embedder.ts'
import { normalizeVector } from './normalize-vector.ts'

export type CreateOpenAiEmbedderParameters = {
  /** API base, e.g. `https://api.openai.com/v1`; texts go to `POST {url}/embeddings`. */
  url: string
  apiKey?: string
  model: string
  /** Expected vector length; answers of another length reject. Unset: learned from the first answer. */
  dimension?: number
  /** For the whole exchange, body included. */
  timeoutMs?: number
  /** Most texts per request (OpenAI accepts up to 2048 inputs). */
  maxBatch?: number
  fetch?: typeof globalThis.fetch
  /** Told of each request to the endpoint and how it went (`outbound_calls_total`). */
  onCall?: (outcome: 'ok' | 'error') => void
}

// Only what we read; `object`, `model` and `usage` are ignored. Embeddings as
// float arrays: we never ask for `encoding_format: "base64"`.
const EmbeddingsResponse = z.object({
  data: z.array(
    z.object({ index: z.number().int().nonnegative(), embedding: z.array(z.number()).min(1) }),
  ),
})

/**
 * An OpenAI-compatible embeddings endpoint (OpenAI, Azure OpenAI, vLLM, Ollama,
 * text-embeddings-inference, ...). Sends `{ model, input: texts }`, orders the
 * answer by `index` and normalises every vector. A timeout, a non-2xx status,
 * or a body that is not one vector per text of one length rejects with
 * `EmbedderUnavailableError`.
 *
 * The model id carries the host as well as the model name: two servers can
 * serve different weights under one name, and vectors from different weights
 * must never be compared (re-embedding is only a cost).
 *
 * @example
 * const embedder = createOpenAiEmbedder({ url: 'https://api.openai.com/v1', apiKey, model: 'text-embedding-3-small' })
 */
export const createOpenAiEmbedder = ({
  url,
  apiKey,
  model,
  dimension: configured,
  timeoutMs = 10_000,
  maxBatch = 2048,
  fetch = globalThis.fetch,
  onCall,
}: CreateOpenAiEmbedderParameters): Embedder => {
  const base = new URL(url)
  let learned: number | undefined
  let closed = false
  // close() aborts what is in flight, so a shutdown does not wait for a timeout.
  const inFlight = new Set<AbortController>()

  const request = async (input: string[]): Promise<Float32Array[]> => {
    try {
      const vectors = await send(input)
      onCall?.('ok')
      return vectors
    } catch (error) {
      onCall?.('error')
      throw error
    }
  }

  const send = async (input: string[]): Promise<Float32Array[]> => {
    const controller = new AbortController()
    inFlight.add(controller)
    let body: unknown
    try {
      const answered = await postOpenAiJson(
        { url, apiKey, timeoutMs },
        'embeddings',
        { model, input },
        { fetch, signal: controller.signal },
      )
      if (!answered.ok)
        throw new EmbedderUnavailableError(`embeddings endpoint answered ${answered.status}`)
      body = answered.body
    } catch (error) {
      if (error instanceof EmbedderUnavailableError) throw error
      throw new EmbedderUnavailableError('embeddings endpoint unreachable or unreadable', {
        cause: error,
      })
    } finally {
      inFlight.delete(controller)
    }
    const parsed = EmbeddingsResponse.safeParse(body)
    if (!parsed.success)
      throw new EmbedderUnavailableError('embeddings endpoint answered an unexpected body')
    return toVectors(parsed.data.data, input.length)
  }

  const toVectors = (data: z.infer<typeof EmbeddingsResponse>['data'], count: number) => {
    if (data.length !== count)
      throw new EmbedderUnavailableError(`expected ${count} embeddings, got ${data.length}`)
    const ordered = [...data].sort((a, b) => a.index - b.index)
    const expected = configured ?? learned ?? ordered[0]!.embedding.length
    return ordered.map((item, position) => {
      if (item.index !== position)
        throw new EmbedderUnavailableError('embedding indices are not 0..n-1')
      if (item.embedding.length !== expected)
        throw new EmbedderUnavailableError(
          `expected ${expected} dimensions, got ${item.embedding.length}`,
        )
      return normalizeVector(item.embedding)
    })
  }

  return {
    modelId: `openai:${model}@${base.host}`,
    get dimension() {
      return configured ?? learned ?? 0
    },
    embed: async (texts) => {
      if (closed) throw new EmbedderUnavailableError('embedder is closed')
      const vectors: Float32Array[] = []
      for (let start = 0; start < texts.length; start += maxBatch)
        vectors.push(...(await request(texts.slice(start, start + maxBatch))))
      // Only a complete, valid answer fixes the dimension for later calls.
      if (vectors[0]) learned ??= vectors[0].length
      return vectors
    },
    close: async () => {
      closed = true
      for (const controller of inFlight) controller.abort()
    },
  }
}

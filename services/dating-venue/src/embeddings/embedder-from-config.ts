import type { z } from 'zod'
import { createLocalEmbedder } from './create-local-embedder.ts'
import { createOpenAiEmbedder } from './create-openai-embedder.ts'
import type { Embedder } from './embedder.ts'
import { EmbeddingsConfig } from './embeddings-config.ts'

/**
 * Builds the configured embedder: the OpenAI-compatible endpoint when
 * `EMBEDDINGS_URL` is set, else the local model in `EMBEDDINGS_THREADS`
 * workers (started on the first embed). Takes the parsed service config or
 * raw env-like settings (parsed here; throws on invalid values); `onCall` is
 * told of each request to the endpoint (the local model makes none).
 *
 * @example
 * const embedder = embedderFromConfig(process.env)
 */
export const embedderFromConfig = (
  settings: z.input<typeof EmbeddingsConfig>,
  { onCall }: { onCall?: (outcome: 'ok' | 'error') => void } = {},
): Embedder => {
  const config = EmbeddingsConfig.parse(settings)
  if (config.EMBEDDINGS_URL)
    return createOpenAiEmbedder({
      url: config.EMBEDDINGS_URL,
      apiKey: config.EMBEDDINGS_API_KEY,
      model: config.EMBEDDINGS_MODEL,
      dimension: config.EMBEDDINGS_DIMENSION,
      timeoutMs: config.EMBEDDINGS_TIMEOUT_MS,
      ...(onCall ? { onCall } : {}),
    })
  return createLocalEmbedder({ threads: config.EMBEDDINGS_THREADS })
}

import type { z } from 'zod'
import { createLocalEmbedder } from './create-local-embedder.ts'
import { createOpenAiEmbedder } from './create-openai-embedder.ts'
import type { Embedder } from './embedder.ts'
import { EmbeddingsConfig } from './embeddings-config.ts'

/**
 * Builds the configured embedder: the OpenAI-compatible endpoint when
 * `EMBEDDINGS_URL` is set, else the local model in `EMBEDDINGS_THREADS`
 * workers (started on the first embed). Takes the parsed service config or
 * raw env-like settings (parsed here; throws on invalid values).
 *
 * @example
 * const embedder = embedderFromConfig(process.env)
 */
export const embedderFromConfig = (settings: z.input<typeof EmbeddingsConfig>): Embedder => {
  const config = EmbeddingsConfig.parse(settings)
  if (config.EMBEDDINGS_URL)
    return createOpenAiEmbedder({
      url: config.EMBEDDINGS_URL,
      apiKey: config.EMBEDDINGS_API_KEY,
      model: config.EMBEDDINGS_MODEL,
      dimension: config.EMBEDDINGS_DIMENSION,
      timeoutMs: config.EMBEDDINGS_TIMEOUT_MS,
    })
  return createLocalEmbedder({ threads: config.EMBEDDINGS_THREADS })
}

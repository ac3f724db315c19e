import { availableParallelism } from 'node:os'
import { z } from 'zod'

// An env file often carries `KEY=` for "not set"; read a blank value as unset.
const blankAsUnset = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value

/**
 * The embedder's environment variables, to spread into the service config
 * (`...EmbeddingsConfig.shape`). With `EMBEDDINGS_URL` set, texts go to that
 * OpenAI-compatible endpoint; without it, to the local model in worker threads.
 */
export const EmbeddingsConfig = z.object({
  /** OpenAI-compatible API base (e.g. `https://api.openai.com/v1`); unset = the local model. */
  EMBEDDINGS_URL: z.preprocess(blankAsUnset, z.url({ protocol: /^https?$/ }).optional()),
  EMBEDDINGS_API_KEY: z.preprocess(blankAsUnset, z.string().optional()),
  EMBEDDINGS_MODEL: z.string().min(1).default('text-embedding-3-small'),
  /** Expected vector length of the remote model; unset = whatever its first answer has. */
  EMBEDDINGS_DIMENSION: z.preprocess(
    blankAsUnset,
    z.coerce.number().int().min(1).max(16_384).optional(),
  ),
  EMBEDDINGS_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Worker threads of the local model (each holds its own copy of it). Default: one per core. */
  EMBEDDINGS_THREADS: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .default(() => availableParallelism()),
})
export type EmbeddingsConfig = z.infer<typeof EmbeddingsConfig>

export { cosine } from './cosine.ts'
export {
  type CreateLocalEmbedderParameters,
  createLocalEmbedder,
  DEFAULT_LOCAL_BATCH_SIZE,
  LOCAL_DIMENSION,
  LOCAL_MODEL_ID,
  type LocalEmbedder,
} from './create-local-embedder.ts'
export {
  type CreateOpenAiEmbedderParameters,
  createOpenAiEmbedder,
} from './create-openai-embedder.ts'
export { type Embedder, EmbedderUnavailableError } from './embedder.ts'
export { embedderFromConfig } from './embedder-from-config.ts'
export { EmbeddingsConfig } from './embeddings-config.ts'
export { normalizeVector } from './normalize-vector.ts'
export { vectorFromBytes, vectorToBytes } from './vector-bytes.ts'

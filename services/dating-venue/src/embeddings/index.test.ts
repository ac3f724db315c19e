import { expect, test } from 'vitest'
import * as embeddings from './index.ts'

test('exports', () => {
  expect(Object.keys(embeddings).sort()).toMatchInlineSnapshot(`
    [
      "DEFAULT_LOCAL_BATCH_SIZE",
      "EmbedderUnavailableError",
      "EmbeddingsConfig",
      "LOCAL_DIMENSION",
      "LOCAL_MODEL_ID",
      "cosine",
      "createLocalEmbedder",
      "createOpenAiEmbedder",
      "embedderFromConfig",
      "normalizeVector",
      "vectorFromBytes",
      "vectorToBytes",
    ]
  `)
})

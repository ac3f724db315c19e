import { availableParallelism } from 'node:os'
import { expect, test } from 'vitest'
import { LOCAL_MODEL_ID, type LocalEmbedder } from './create-local-embedder.ts'
import { embedderFromConfig } from './embedder-from-config.ts'
import { EmbeddingsConfig } from './embeddings-config.ts'

test('default', () => {
  expect(EmbeddingsConfig.parse({})).toEqual({
    EMBEDDINGS_MODEL: 'text-embedding-3-small',
    EMBEDDINGS_TIMEOUT_MS: 10_000,
    EMBEDDINGS_THREADS: availableParallelism(),
  })
})

test('behavior: without EMBEDDINGS_URL, the local model in EMBEDDINGS_THREADS workers', async () => {
  // Nothing starts until the first embed, so this costs no model load.
  const embedder = embedderFromConfig({ EMBEDDINGS_THREADS: '3', EMBEDDINGS_URL: '' })
  expect(embedder.modelId).toBe(LOCAL_MODEL_ID)
  expect(embedder.dimension).toBe(512)
  expect((embedder as LocalEmbedder).threads).toBe(3)
  await embedder.close()
})

test('behavior: with EMBEDDINGS_URL, the OpenAI-compatible endpoint', async () => {
  const embedder = embedderFromConfig({
    EMBEDDINGS_URL: 'https://api.openai.com/v1',
    EMBEDDINGS_API_KEY: 'sk-x',
    EMBEDDINGS_DIMENSION: '1536',
  })
  expect(embedder.modelId).toBe('openai:text-embedding-3-small@api.openai.com')
  expect(embedder.dimension).toBe(1536)
  await embedder.close()
})

test('behavior: the parsed service config is accepted as well', () => {
  const config = EmbeddingsConfig.parse({
    EMBEDDINGS_URL: 'http://127.0.0.1:8080/v1',
    EMBEDDINGS_MODEL: 'nomic-embed-text',
  })
  expect(embedderFromConfig(config).modelId).toBe('openai:nomic-embed-text@127.0.0.1:8080')
})

test('error: invalid settings', () => {
  expect(() => embedderFromConfig({ EMBEDDINGS_URL: 'ftp://x' })).toThrow()
  expect(() => embedderFromConfig({ EMBEDDINGS_THREADS: '0' })).toThrow()
  expect(() => embedderFromConfig({ EMBEDDINGS_TIMEOUT_MS: 'soon' })).toThrow()
})

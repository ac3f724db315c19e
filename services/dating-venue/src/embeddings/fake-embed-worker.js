// @ts-check
// A stand-in for embed-worker.js in the pool's tests: answers at once with
// vectors that say which text and which thread produced them, and crashes on
// request. `workerData` may set `dimension` (reported at start), `delay`
// (milliseconds before each answer) and `silent` (never says it is ready).
import { parentPort, threadId, workerData } from 'node:worker_threads'

/** @typedef {import('./embed-task.ts').EmbedTask} EmbedTask */
/** @typedef {import('./embed-task.ts').EmbedWorkerMessage} EmbedWorkerMessage */

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort)
/** @type {{ dimension?: number, delay?: number, silent?: boolean }} */
const { dimension = 512, delay = 0, silent = false } = workerData ?? {}
/** @param {EmbedWorkerMessage} message */
const post = (message) => port.postMessage(message)

/** @param {EmbedTask} task */
const answer = ({ id, texts }) => {
  if (texts.includes('exit!')) process.exit(3)
  if (texts.includes('throw!')) throw new Error('worker blew up')
  if (texts.includes('fail!')) return post({ type: 'failed', id, message: 'no such luck' })
  if (texts.includes('hang!')) return
  // [1, thread, text number, batch length, 0, ...]: normalising keeps the
  // ratios to index 0.
  const vectors = new Float32Array(texts.length * dimension)
  texts.forEach((text, row) => {
    vectors[row * dimension] = 1
    vectors[row * dimension + 1] = threadId
    vectors[row * dimension + 2] = Number(text.replace(/\D/g, '') || 0)
    vectors[row * dimension + 3] = texts.length
  })
  post({ type: 'done', id, vectors })
}

port.on('message', (/** @type {EmbedTask} */ task) => {
  if (delay > 0) setTimeout(() => answer(task), delay)
  else answer(task)
})
if (!silent) post({ type: 'ready', dimension, loadMs: 0 })

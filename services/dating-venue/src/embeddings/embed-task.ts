/** One batch of texts for an embedding worker (see embed-worker.js). */
export type EmbedTask = { id: number; texts: string[] }

/**
 * What a worker posts: `ready` once after loading the model, then one answer
 * per task. `vectors` holds `texts.length × dimension` raw model outputs, row
 * by row, in one transferred buffer (no per-vector structured clone).
 */
export type EmbedWorkerMessage =
  | { type: 'ready'; dimension: number; loadMs: number }
  | { type: 'done'; id: number; vectors: Float32Array }
  | { type: 'failed'; id: number; message: string }

import { EmbedderUnavailableError } from './embedder.ts'

/**
 * Copies `values` into a new Float32Array of unit L2 norm. Sums in float64 so
 * the norm of a 512 to 3072-d vector carries no float32 rounding.
 * Throws `EmbedderUnavailableError` for a zero or non-finite vector: no model
 * answers that for a real text, so it means a broken answer.
 */
export const normalizeVector = (values: ArrayLike<number>): Float32Array => {
  let sum = 0
  for (let index = 0; index < values.length; index++) {
    const value = values[index]!
    sum += value * value
  }
  const norm = Math.sqrt(sum)
  if (!Number.isFinite(norm) || norm === 0)
    throw new EmbedderUnavailableError('embedding is zero or not finite')
  const out = new Float32Array(values.length)
  for (let index = 0; index < values.length; index++) out[index] = values[index]! / norm
  return out
}

/**
 * Cosine similarity of two vectors of equal length, in [-1, 1]. For the
 * normalised vectors an `Embedder` returns this equals their dot product; the
 * division keeps it right for vectors read back from elsewhere. 0 when either
 * vector is zero.
 */
export const cosine = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  if (a.length !== b.length)
    throw new RangeError(`cosine of vectors of different lengths (${a.length}, ${b.length})`)
  let dot = 0
  let normA = 0
  let normB = 0
  for (let index = 0; index < a.length; index++) {
    const x = a[index]!
    const y = b[index]!
    dot += x * y
    normA += x * x
    normB += y * y
  }
  if (normA === 0 || normB === 0) return 0
  return dot / Math.sqrt(normA * normB)
}

import type { Prefs } from '../heart/heart-schema.ts'
import { allowedCompiledPair, type CompiledFilter, compileFilter } from './filters.ts'

/** A persona offered to the matchmaker: its heart's vector (L2-normalised) and its hard filters. */
export type PairingCandidate = {
  readonly id: number
  readonly vector: Float32Array
  readonly prefs?: Prefs | undefined
}

/**
 * An extra rule by persona id, true when the two may pair (the beat uses it for
 * pairs that courted before). It is called with the lower id first, so it is symmetric.
 */
export type AllowedIds = (lowerId: number, higherId: number) => boolean

/** The candidates packed for search: one row per candidate, in arrival order. */
export type PackedCandidates = {
  readonly count: number
  readonly dimensions: number
  readonly ids: Float64Array
  /** Row-major `count × dimensions`, the layout usearch takes without copying. */
  readonly matrix: Float32Array
  /** Whether rows `i` and `j` may pair: both filters and the caller's `allowedIds`. */
  readonly allowed: (i: number, j: number) => boolean
  /**
   * Upper bound on |usearch f32 dot − exact dot| for any two rows. A search
   * result list is trusted only above its last score plus this margin.
   */
  readonly searchError: number
  /** The largest squared norm (1 for normalised vectors), which scales rounding errors. */
  readonly maxNormSquared: number
}

/** Input the matchmaker cannot pair: a programming error upstream, not an expected outcome. */
export class PairingInputError extends Error {
  override name = 'PairingInputError'
}

/**
 * The similarity every pairing decision uses: the dot product (cosine for
 * normalised vectors), summed in f64 over four lanes in index order. The
 * products of two f32 values are exact in f64 and the order is fixed, so
 * `similarity(m, d, i, j) === similarity(m, d, j, i)` bit for bit; that
 * symmetry is what makes mutual-best well defined.
 */
export const similarity = (matrix: Float32Array, d: number, i: number, j: number): number => {
  const a = i * d
  const b = j * d
  let s0 = 0
  let s1 = 0
  let s2 = 0
  let s3 = 0
  let k = 0
  for (; k + 3 < d; k += 4) {
    s0 += matrix[a + k]! * matrix[b + k]!
    s1 += matrix[a + k + 1]! * matrix[b + k + 1]!
    s2 += matrix[a + k + 2]! * matrix[b + k + 2]!
    s3 += matrix[a + k + 3]! * matrix[b + k + 3]!
  }
  for (; k < d; k++) s0 += matrix[a + k]! * matrix[b + k]!
  return s0 + s1 + (s2 + s3)
}

/** Validates the candidates and packs them: unique finite ids, one dimension, finite components. */
export const packCandidates = (
  candidates: readonly PairingCandidate[],
  allowedIds: AllowedIds | undefined,
): PackedCandidates => {
  const count = candidates.length
  const dimensions = candidates[0]?.vector.length ?? 0
  const ids = new Float64Array(count)
  // Vectors that are already the rows of one matrix, in order, are used in place (the index
  // process packs them so: at 200,000 personas a copy is 400 MB).
  const buffer = candidates[0]?.vector.buffer
  const packed =
    buffer?.byteLength === count * dimensions * 4 &&
    candidates.every(
      (c, i) =>
        c.vector.buffer === buffer &&
        c.vector.length === dimensions &&
        c.vector.byteOffset === i * dimensions * 4,
    )
  const matrix = packed
    ? new Float32Array(buffer, 0, count * dimensions)
    : new Float32Array(count * dimensions)
  const filters: CompiledFilter[] = new Array(count)
  const seen = new Set<number>()
  let maxNormSquared = 0
  for (let i = 0; i < count; i++) {
    const { id, vector, prefs } = candidates[i]!
    if (!Number.isFinite(id) || seen.has(id))
      throw new PairingInputError(`candidate id ${id} is not finite or appears twice`)
    if (vector.length !== dimensions || dimensions === 0)
      throw new PairingInputError(
        `candidate ${id} has ${vector.length} dimensions, not ${dimensions}`,
      )
    seen.add(id)
    ids[i] = id
    if (!packed) matrix.set(vector, i * dimensions)
    let normSquared = 0
    for (let k = 0; k < dimensions; k++) normSquared += vector[k]! * vector[k]!
    // NaN fails every comparison, so it would silently never pair: reject it instead.
    if (!Number.isFinite(normSquared))
      throw new PairingInputError(`candidate ${id} has a non-finite component`)
    if (normSquared > maxNormSquared) maxNormSquared = normSquared
    filters[i] = compileFilter(prefs)
  }
  const allowed = allowedIds
    ? (i: number, j: number) =>
        allowedCompiledPair(filters[i]!, filters[j]!) &&
        (ids[i]! < ids[j]! ? allowedIds(ids[i]!, ids[j]!) : allowedIds(ids[j]!, ids[i]!))
    : (i: number, j: number) => allowedCompiledPair(filters[i]!, filters[j]!)
  // f32 accumulation over d terms errs by at most d·2^-24·Σ|a_k b_k| (Cauchy-Schwarz bounds the
  // sum by the norms); usearch reports 1 - dot, two more roundings. Doubled for safety: a
  // larger margin only costs an occasional extra re-query, a smaller one could cost exactness.
  const searchError = 2 * (maxNormSquared * dimensions * 2 ** -24 + 2 ** -22)
  return { count, dimensions, ids, matrix, allowed, searchError, maxNormSquared }
}

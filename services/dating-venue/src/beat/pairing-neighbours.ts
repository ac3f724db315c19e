import { exactSearch, MetricKind, ScalarKind } from 'usearch'
import type { MatchPool } from './match-pool.ts'
import type { PackedCandidates } from './pairing-matrix.ts'

/** The k best rows found for each query row, best first. */
export type NeighbourLists = {
  /** Results of query `q` are `rows[q * width + r]` for `r < counts[q]`. */
  readonly width: number
  readonly rows: Int32Array
  /** The search's own similarity (1 − distance): it orders results and bounds what was left out. */
  readonly scores: Float32Array
  readonly counts: Int32Array
  /** How many rows the search covered (queries included): `counts[q] === searched` means complete. */
  readonly searched: number
  /**
   * Every score is within `margin` of the exact similarity, and nothing the
   * search left out scores above its last result. Exact search: f32
   * rounding. HNSW: the rounding of its stored type (f16), while its
   * ranking is taken at its word: that is the approximation.
   */
  readonly margin: number
  /**
   * Per query, the score below which its list says nothing (NaN: its last
   * score). Kept lists carry it: rows they named may have left since, and
   * what is left of the list no longer shows where it was cut.
   */
  readonly floors?: Float32Array
}

/** Where the matchmaker gets neighbour lists from. */
export type NeighbourSource = {
  /**
   * Searches the rows `among` (every row when undefined) for the `k` best
   * of each query row (every row when undefined). Queries are among the rows searched.
   */
  search(queries: Int32Array | undefined, among: Int32Array | undefined, k: number): NeighbourLists
  /** Rows that left the pool for good: later searches must not return them. */
  forget(rows: Int32Array): void
}

// usearch's exactSearch materialises a queries × dataset table of 16-byte
// entries twice over and transposes it on one thread; at 50,000 × 50,000
// that is 40 GB (std::bad_alloc). Batching queries caps the table at ~64 MB,
// and on this machine small batches were also faster (10k × 10k × 512:
// 64 queries a batch 12.9 s, 4,096 a batch 20.9 s).
const EXACT_BATCH_ENTRIES = 1 << 21

/** Multiply-adds below which an exact search runs on the calling thread (about a millisecond). */
const ONE_THREAD_UP_TO = 1 << 23

const gather = (matrix: Float32Array, d: number, rows: Int32Array) => {
  const out = new Float32Array(rows.length * d)
  for (let r = 0; r < rows.length; r++) {
    const from = rows[r]! * d
    out.set(matrix.subarray(from, from + d), r * d)
  }
  return out
}

/** Exact top-k by usearch's SIMD inner product, optionally over a subset (the remainder). */
export const searchExact = (
  packed: PackedCandidates,
  queries: Int32Array | undefined,
  among: Int32Array | undefined,
  k: number,
  threads: number,
): NeighbourLists => {
  const d = packed.dimensions
  const data = among ? gather(packed.matrix, d, among) : packed.matrix
  const searched = among ? among.length : packed.count
  const queryMatrix = queries ? gather(packed.matrix, d, queries) : packed.matrix
  const queryCount = queries ? queries.length : packed.count
  const width = Math.min(k, searched)
  const rows = new Int32Array(queryCount * width)
  const scores = new Float32Array(queryCount * width)
  const batch = Math.max(1, Math.floor(EXACT_BATCH_ENTRIES / searched))
  // usearch starts its threads on every call: for a millisecond of work that costs more than it saves.
  const used = queryCount * searched * d < ONE_THREAD_UP_TO ? 1 : threads
  for (let first = 0; first < queryCount; first += batch) {
    const last = Math.min(queryCount, first + batch)
    // One query gives `Matches`, several `BatchMatches`: both lay keys out query by query, `width` each.
    // `slice`, not `subarray`: usearch 2.26's exactSearch reads from the start of the ArrayBuffer and
    // ignores a view's byteOffset, so every batch would search the first rows again.
    const found = exactSearch(
      data,
      queryMatrix.slice(first * d, last * d),
      d,
      width,
      MetricKind.IP,
      used,
    )
    const offset = first * width
    for (let e = 0; e < found.keys.length; e++) {
      const key = Number(found.keys[e]!)
      rows[offset + e] = among ? among[key]! : key
      scores[offset + e] = 1 - found.distances[e]!
    }
  }
  return {
    width,
    rows,
    scores,
    counts: new Int32Array(queryCount).fill(width),
    searched,
    margin: packed.searchError,
  }
}

// Unit roundoff of each storage type; the 8-bit ones are coarse, so their windows are wide.
const QUANTIZATION_ROUNDING: Partial<Record<ScalarKind, number>> = {
  [ScalarKind.F64]: 0,
  [ScalarKind.F32]: 0,
  [ScalarKind.F16]: 2 ** -11,
  [ScalarKind.BF16]: 2 ** -8,
}

/**
 * Neighbours from the kept pool (`MatchPool`), which must hold exactly the
 * packed personas when the run starts. Rows that pair leave the pool, so
 * searches see the remainder; once removed nodes outnumber the live ones the
 * graph is rebuilt from the remainder before the next search. Re-queries over
 * a small remainder run exact.
 */
export const createPoolSource = (packed: PackedCandidates, pool: MatchPool): NeighbourSource => {
  const { quantization, exactRemainder, exactPerK, threads } = pool.options
  const rowOf = new Map<number, number>()
  for (let row = 0; row < packed.count; row++) rowOf.set(packed.ids[row]!, row)
  // The graph's ranking is taken at its word (the approximation); its scores are not, they
  // are off by the quantisation: each product errs by ~2 units of rounding of the stored type,
  // summed over |a_k b_k| ≤ |a||b|, plus cosine's renormalisation.
  const rounding = QUANTIZATION_ROUNDING[quantization] ?? 2 ** -3
  const margin = packed.searchError + 4 * rounding * packed.maxNormSquared
  /**
   * The first lists of a run from the pool's kept lists (see
   * `keptNeighbours`): no search for personas that have one, the graph for
   * those that do not (they came back in, or the pool loaded a snapshot).
   */
  const kept = (k: number): NeighbourLists | undefined => {
    const width = Math.max(k, pool.options.keptNeighbours)
    if (pool.options.keptNeighbours === 0) return undefined
    pool.build()
    const rows = new Int32Array(packed.count * width)
    const scores = new Float32Array(packed.count * width)
    const counts = new Int32Array(packed.count)
    const floors = new Float32Array(packed.count).fill(Number.NaN)
    const missing: number[] = []
    for (let row = 0; row < packed.count; row++) {
      const list = pool.neighbours(packed.ids[row]!)
      if (!list) {
        missing.push(row)
        continue
      }
      let n = 0
      for (let r = 0; r < list.ids.length; r++) {
        const other = rowOf.get(list.ids[r]!)
        if (other === undefined) continue
        rows[row * width + n] = other
        scores[row * width + n++] = list.scores[r]!
      }
      counts[row] = n
      floors[row] = list.floor
    }
    if (missing.length > 0) {
      const found = searchGraph(Int32Array.from(missing), k)
      for (let q = 0; q < missing.length; q++) {
        const row = missing[q]!
        counts[row] = found.counts[q]!
        rows.set(
          found.rows.subarray(q * found.width, q * found.width + found.counts[q]!),
          row * width,
        )
        scores.set(
          found.scores.subarray(q * found.width, q * found.width + found.counts[q]!),
          row * width,
        )
      }
    }
    return { width, rows, scores, counts, searched: pool.size, margin, floors }
  }
  /** The graph's k best candidates of each query row (every row when undefined). */
  const searchGraph = (queries: Int32Array | undefined, k: number): NeighbourLists => {
    pool.compact()
    const d = packed.dimensions
    const queryMatrix = queries ? gather(packed.matrix, d, queries) : packed.matrix
    const found = pool.search(queryMatrix, k)
    const { width, scores } = found
    const queryCount = found.counts.length
    const rows = new Int32Array(queryCount * width)
    const counts = new Int32Array(queryCount)
    for (let q = 0; q < queryCount; q++) {
      let n = 0
      for (let r = 0; r < found.counts[q]!; r++) {
        const row = rowOf.get(found.keys[q * width + r]!)
        if (row === undefined) continue
        rows[q * width + n] = row
        scores[q * width + n] = scores[q * width + r]!
        n++
      }
      counts[q] = n
    }
    return { width, rows, scores, counts, searched: pool.size, margin }
  }
  return {
    search(queries, among, k) {
      if (!queries && !among) {
        const lists = kept(k)
        if (lists) return lists
      }
      // Also exact once k nears the remainder: a graph search need not return every row, and
      // a list that never becomes complete would be re-queried for ever.
      if (
        among &&
        (among.length <= Math.max(exactRemainder, exactPerK * k) || 4 * k >= among.length)
      )
        return searchExact(packed, queries, among, k, threads)
      return searchGraph(queries, k)
    },
    forget(rows) {
      if (rows.length === 0) return
      const ids: number[] = new Array(rows.length)
      for (let r = 0; r < rows.length; r++) ids[r] = packed.ids[rows[r]!]!
      pool.remove(ids)
    },
  }
}

/** Exact search as a source: `forget` is a no-op since every re-query names the remainder. */
export const createExactSource = (packed: PackedCandidates, threads = 0): NeighbourSource => ({
  search: (queries, among, k) => searchExact(packed, queries, among, k, threads),
  forget: () => {},
})

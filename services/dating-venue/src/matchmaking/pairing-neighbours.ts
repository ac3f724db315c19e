import { exactSearch, Index, MetricKind, ScalarKind } from 'usearch'
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
      threads,
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
 * HNSW settings. Defaults measured on 50,000 × 512-d clustered personas
 * (bench/dating-venue), 2 shared cores, share of exact pairs reproduced
 * and pairing time: expansionSearch 64: 93.9 %, 39-40 s; 96: 97.1 %,
 * 43 s; 128: 98.7 %, 42-48 s; expansionAdd 128 as well: 99.5 %, 49 s.
 * Greedy mutual pairing amplifies misses (each changes a chain of pairs),
 * so recall@10 of 98 % (ef 64) costs 6 % of pairs. f16 halves memory
 * against f32 at the same recall; i8 lost recall (0.84 at top-11).
 */
export type HnswOptions = {
  quantization?: ScalarKind
  connectivity?: number
  expansionAdd?: number
  expansionSearch?: number
  /** A re-query over at most this many remaining rows runs exact: cheaper than the graph there, and exact. */
  exactRemainder?: number
  /**
   * ... or over at most this many times k: a graph search for k costs about
   * max(k, expansionSearch) steps and slows as removals pile up. Measured at
   * 50,000 × 512-d, 2 shared cores: 5,258 rows left, 1,134 queries, k 272:
   * HNSW 5.9 s, exact 0.5 s; 18,572 left, 8,763 queries, k 68: HNSW 4.5 s, exact ~15 s.
   */
  exactPerK?: number
  /**
   * Threads building and searching the graph (usearch sizes its search
   * contexts at insertion, so one count serves both). Parallel insertion
   * races, so the graph, and a few pairs, can differ from run to run; one
   * thread makes runs reproducible. Measured at 50,000 × 512-d on the 2
   * shared cores: building took 11.1-13.1 s on one thread, 11.7-12.5 s on two.
   */
  threads?: number
}

/** An HNSW index over every row; rows that pair are removed from it, so searches see the remainder. */
export const createHnswSource = (
  packed: PackedCandidates,
  {
    quantization = ScalarKind.F16,
    connectivity = 16,
    expansionAdd = 64,
    expansionSearch = 128,
    exactRemainder = 4096,
    exactPerK = 48,
    threads = 1,
  }: HnswOptions = {},
): NeighbourSource => {
  const index = new Index({
    dimensions: packed.dimensions,
    metric: MetricKind.Cos,
    quantization,
    connectivity,
    expansion_add: expansionAdd,
    expansion_search: expansionSearch,
    multi: false,
  })
  const keys = new BigUint64Array(packed.count)
  for (let i = 0; i < packed.count; i++) keys[i] = BigInt(i)
  index.add(keys, packed.matrix, threads)
  // The graph's ranking is taken at its word (the approximation); its scores are not, they
  // are off by the quantisation: each product errs by ~2 units of rounding of the stored type,
  // summed over |a_k b_k| ≤ |a||b|, plus cosine's renormalisation.
  const rounding = QUANTIZATION_ROUNDING[quantization] ?? 2 ** -3
  const margin = packed.searchError + 4 * rounding * packed.maxNormSquared
  return {
    search(queries, among, k) {
      // Also exact once k nears the remainder: a graph search need not return every row, and
      // a list that never becomes complete would be re-queried for ever.
      if (
        among &&
        (among.length <= Math.max(exactRemainder, exactPerK * k) || 4 * k >= among.length)
      )
        return searchExact(packed, queries, among, k, threads)
      const d = packed.dimensions
      const queryMatrix = queries ? gather(packed.matrix, d, queries) : packed.matrix
      const queryCount = queries ? queries.length : packed.count
      // The typings promise `Matches` for a flat array; several queries in it give `BatchMatches`.
      const found = index.search(queryMatrix, k, threads) as unknown as {
        keys: BigUint64Array
        distances: Float32Array
        counts?: BigUint64Array
      }
      const width = queryCount === 1 ? found.keys.length : k
      const counts = new Int32Array(queryCount)
      const rows = new Int32Array(queryCount * width)
      const scores = new Float32Array(queryCount * width)
      for (let q = 0; q < queryCount; q++) {
        const count = found.counts ? Number(found.counts[q]!) : found.keys.length
        counts[q] = count
        for (let r = 0; r < count; r++) {
          rows[q * width + r] = Number(found.keys[q * width + r]!)
          scores[q * width + r] = 1 - found.distances[q * width + r]!
        }
      }
      return { width, rows, scores, counts, searched: index.size(), margin }
    },
    forget(rows) {
      if (rows.length === 0) return
      const gone = new BigUint64Array(rows.length)
      for (let r = 0; r < rows.length; r++) gone[r] = BigInt(rows[r]!)
      index.remove(gone)
    },
  }
}

/** Exact search as a source: `forget` is a no-op since every re-query names the remainder. */
export const createExactSource = (packed: PackedCandidates, threads = 0): NeighbourSource => ({
  search: (queries, among, k) => searchExact(packed, queries, among, k, threads),
  forget: () => {},
})

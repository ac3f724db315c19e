import { type PackedCandidates, similarity } from './pairing-matrix.ts'
import type { NeighbourLists } from './pairing-neighbours.ts'

/**
 * Each row's allowed candidates in the search's order (its estimate of the
 * similarity, best first). Every estimate is within `margin[x]` of the exact
 * value, so x's exact best is within a window of 2·margin below the first
 * remaining entry; exact similarities are computed only for that window,
 * when a decision needs them. `bound[x]` is the highest exact similarity a
 * row missing from x's list could have: -Infinity once x's search covered
 * every row left.
 *
 * Lists live in chunks, not an array per row: the first search's in chunk
 * 0, each re-query phase's merged lists in a chunk of their own. At 200,000
 * personas three views per row were 70 MB of JavaScript objects, and a
 * cache of exact similarities per entry 150 MB; an exact similarity is a
 * 512-term dot product, and a window holds a few entries.
 */
export type CandidateLists = {
  chunkRows: Int32Array[]
  chunkEstimates: Float32Array[]
  /** Row x's entries are `chunkRows[chunk[x]]` at positions [start[x], end[x]). */
  chunk: Int32Array
  start: Int32Array
  end: Int32Array
  /** Entries before it (a position, like `start`) are paired. */
  cursor: Int32Array
  /** The position of x's best while that row is unpaired, else -1. */
  bestAt: Int32Array
  /** The exact similarity of x's best, while `bestAt[x]` holds. */
  bestScore: Float64Array
  margin: Float64Array
  bound: Float64Array
  /** The k of the row's last search: re-queries grow it. */
  searched: Int32Array
}

/** The row x's entry at `at`, a position from `bestEntry`. */
export const entryRow = (lists: CandidateLists, x: number, at: number) =>
  lists.chunkRows[lists.chunk[x]!]![at]!

const boundOf = (found: NeighbourLists, q: number) => {
  const count = found.counts[q]!
  if (count >= found.searched) return -Infinity
  // A kept list knows its own floor even when the rows it named have left since.
  const floor = found.floors?.[q]
  if (floor !== undefined && !Number.isNaN(floor)) return floor + found.margin
  // An empty answer from an index says nothing: treat every row as possibly better.
  if (count === 0) return Infinity
  return found.scores[q * found.width + count - 1]! + found.margin
}

/** Sorts `rows[from, to)` by estimate, descending. */
const sortRange = (rows: Int32Array, estimates: Float32Array, from: number, to: number) => {
  // A hub found by many rows can have a long range; most are a few entries, where insertion wins.
  if (to - from > 48) {
    const order = Array.from({ length: to - from }, (_, i) => from + i).sort(
      (a, b) => estimates[b]! - estimates[a]!,
    )
    const sortedRows = order.map((at) => rows[at]!)
    const sortedEstimates = order.map((at) => estimates[at]!)
    rows.set(sortedRows, from)
    estimates.set(sortedEstimates, from)
    return
  }
  for (let i = from + 1; i < to; i++) {
    const row = rows[i]!
    const estimate = estimates[i]!
    let j = i - 1
    while (j >= from && estimates[j]! < estimate) {
      rows[j + 1] = rows[j]!
      estimates[j + 1] = estimates[j]!
      j--
    }
    rows[j + 1] = row
    estimates[j + 1] = estimate
  }
}

/**
 * The first lists, from a search of every row for every row. An edge found
 * from either end goes into both ends' lists: HNSW lists are not
 * symmetric, and exact ones gain candidates for free.
 */
export const buildLists = (packed: PackedCandidates, found: NeighbourLists): CandidateLists => {
  const { count, allowed } = packed
  const { width, rows: foundRows, scores, counts } = found
  // Who found each row, to tell an edge found from both ends: a stamp per row, not a scan of
  // the other end's list per edge (9.6 million edges at 200,000 personas).
  const foundBy = new Int32Array(count + 1)
  for (let i = 0; i < count; i++)
    for (let r = 0; r < counts[i]!; r++) foundBy[foundRows[i * width + r]! + 1]!++
  for (let i = 0; i < count; i++) foundBy[i + 1]! += foundBy[i]!
  const finders = new Int32Array(foundBy[count]!)
  const fill = foundBy.slice(0, count)
  for (let i = 0; i < count; i++)
    for (let r = 0; r < counts[i]!; r++) finders[fill[foundRows[i * width + r]!]!++] = i
  const stamp = new Int32Array(count).fill(-1)
  // The entries that become edges (first pass), then the edges laid out (second pass): no
  // array per edge in between.
  const isEdge = new Uint8Array(count * width)
  const own = new Int32Array(count)
  const degree = new Int32Array(count)
  const bound = new Float64Array(count)
  let edges = 0
  for (let i = 0; i < count; i++) {
    for (let f = foundBy[i]!; f < foundBy[i + 1]!; f++) stamp[finders[f]!] = i
    const base = i * width
    for (let r = 0; r < counts[i]!; r++) {
      const j = foundRows[base + r]!
      if (j === i) continue
      // Found from both ends: j's turn already took it (or rejected it by the same filters).
      if (j < i && stamp[j] === i) continue
      if (!allowed(i, j)) continue
      isEdge[base + r] = 1
      edges++
      own[i]!++
      degree[i]!++
      degree[j]!++
    }
    bound[i] = boundOf(found, i)
  }
  const start = new Int32Array(count + 1)
  for (let i = 0; i < count; i++) start[i + 1] = start[i]! + degree[i]!
  const allRows = new Int32Array(2 * edges)
  const allEstimates = new Float32Array(2 * edges)
  // A row's own results go first, already in order; edges found from the other end follow.
  const ownFill = start.slice(0, count)
  const otherFill = new Int32Array(count)
  for (let i = 0; i < count; i++) otherFill[i] = start[i]! + own[i]!
  for (let a = 0; a < count; a++) {
    const base = a * width
    for (let r = 0; r < counts[a]!; r++) {
      if (!isEdge[base + r]) continue
      const b = foundRows[base + r]!
      allRows[ownFill[a]!] = b
      allEstimates[ownFill[a]!++] = scores[base + r]!
      allRows[otherFill[b]!] = a
      allEstimates[otherFill[b]!++] = scores[base + r]!
    }
  }
  const mergedRows = new Int32Array(width + 1)
  const mergedEstimates = new Float32Array(width + 1)
  for (let i = 0; i < count; i++) {
    const first = start[i]!
    const middle = first + own[i]!
    const end = start[i + 1]!
    sortRange(allRows, allEstimates, middle, end)
    // Merge the own part [first, middle) into the sorted rest, from a copy of the own part.
    mergedRows.set(allRows.subarray(first, middle))
    mergedEstimates.set(allEstimates.subarray(first, middle))
    let a = 0
    let b = middle
    for (let out = first; out < end; out++) {
      if (b >= end || (a < middle - first && mergedEstimates[a]! >= allEstimates[b]!)) {
        allRows[out] = mergedRows[a]!
        allEstimates[out] = mergedEstimates[a++]!
      } else {
        allRows[out] = allRows[b]!
        allEstimates[out] = allEstimates[b++]!
      }
    }
  }
  const starts = start.slice(0, count)
  return {
    chunkRows: [allRows],
    chunkEstimates: [allEstimates],
    chunk: new Int32Array(count),
    start: starts,
    end: start.slice(1),
    cursor: starts.slice(),
    bestAt: new Int32Array(count).fill(-1),
    bestScore: new Float64Array(count),
    margin: new Float64Array(count).fill(found.margin),
    bound,
    searched: new Int32Array(count).fill(width),
  }
}

/**
 * Replaces the lists of re-queried rows: what is left of the old list
 * merged with the new results (both in estimate order), deduplicated and
 * filtered, under the new search's bound. The merged lists go into a new chunk.
 */
export const mergeRequery = (
  packed: PackedCandidates,
  lists: CandidateLists,
  queries: Int32Array,
  found: NeighbourLists,
  isPaired: (row: number) => boolean,
) => {
  const { allowed } = packed
  const seenBy = new Int32Array(packed.count).fill(-1)
  // At most what is left of each old list and all its new results: the chunk is sized for that.
  let capacity = 0
  for (let q = 0; q < queries.length; q++) {
    const p = queries[q]!
    capacity += lists.end[p]! - lists.cursor[p]! + found.counts[q]!
  }
  const rows = new Int32Array(capacity)
  const estimates = new Float32Array(capacity)
  const chunk = lists.chunkRows.length
  let out = 0
  const kept: number[] = []
  const fresh: number[] = []
  for (let q = 0; q < queries.length; q++) {
    const p = queries[q]!
    const oldRows = lists.chunkRows[lists.chunk[p]!]!
    const oldEstimates = lists.chunkEstimates[lists.chunk[p]!]!
    kept.length = 0
    fresh.length = 0
    for (let at = lists.cursor[p]!; at < lists.end[p]!; at++) {
      if (isPaired(oldRows[at]!)) continue
      seenBy[oldRows[at]!] = q
      kept.push(at)
    }
    const base = q * found.width
    for (let r = 0; r < found.counts[q]!; r++) {
      const j = found.rows[base + r]!
      if (j === p || seenBy[j] === q || isPaired(j)) continue
      seenBy[j] = q
      if (allowed(p, j)) fresh.push(base + r)
    }
    const first = out
    let a = 0
    let b = 0
    while (a < kept.length || b < fresh.length) {
      const takeOld =
        b >= fresh.length ||
        (a < kept.length && oldEstimates[kept[a]!]! >= found.scores[fresh[b]!]!)
      if (takeOld) {
        const at = kept[a++]!
        rows[out] = oldRows[at]!
        estimates[out++] = oldEstimates[at]!
      } else {
        const at = fresh[b++]!
        rows[out] = found.rows[at]!
        estimates[out++] = found.scores[at]!
      }
    }
    lists.chunk[p] = chunk
    lists.start[p] = first
    lists.end[p] = out
    lists.cursor[p] = first
    lists.bestAt[p] = -1
    lists.margin[p] = kept.length > 0 ? Math.max(lists.margin[p]!, found.margin) : found.margin
    lists.bound[p] = boundOf(found, q)
    lists.searched[p] = found.width
  }
  lists.chunkRows.push(rows)
  lists.chunkEstimates.push(estimates)
}

/**
 * x's best remaining entry: the exact maximum (ties to the lower id) over
 * the window that can hold it, scored now (`bestScore[x]`). Returns its
 * position, or -1 when the list has no remaining entry.
 */
export const bestEntry = (
  packed: PackedCandidates,
  lists: CandidateLists,
  x: number,
  isPaired: (row: number) => boolean,
): number => {
  const rows = lists.chunkRows[lists.chunk[x]!]!
  const cached = lists.bestAt[x]!
  // Removals only take entries away, so the best stays the best while it is unpaired.
  if (cached >= 0 && !isPaired(rows[cached]!)) return cached
  const end = lists.end[x]!
  let at = lists.cursor[x]!
  while (at < end && isPaired(rows[at]!)) at++
  lists.cursor[x] = at
  if (at === end) return -1
  const estimates = lists.chunkEstimates[lists.chunk[x]!]!
  const { ids, matrix, dimensions } = packed
  // Below this estimate an entry's exact similarity is below the first remaining entry's.
  const floor = estimates[at]! - 2 * lists.margin[x]!
  let best = -1
  let bestScore = Number.NEGATIVE_INFINITY
  for (let i = at; i < end && estimates[i]! >= floor; i++) {
    const row = rows[i]!
    if (isPaired(row)) continue
    const score = similarity(matrix, dimensions, x, row)
    if (score > bestScore || (score === bestScore && ids[row]! < ids[rows[best]!]!)) {
      best = i
      bestScore = score
    }
  }
  lists.bestAt[x] = best
  lists.bestScore[x] = bestScore
  return best
}

import { bestEntry, buildLists, type CandidateLists, mergeRequery } from './pairing-lists.ts'
import type { PackedCandidates } from './pairing-matrix.ts'
import type { NeighbourLists, NeighbourSource } from './pairing-neighbours.ts'

/** What one pairing run did, for benches and logs. */
export type PairingStats = {
  mode: 'exact' | 'approximate'
  /** Passes over the unresolved personas; each after the first follows a re-query. */
  phases: number
  /** Personas re-queried, summed over phases. */
  requeried: number
  pairs: number
}

// Row states. Within a phase a row ends PAIRED, ALONE (no allowed partner left, for good),
// UNSURE (its own list cannot name its best: re-query it) or WAITING (its best is UNSURE).
const OPEN = 0
const PAIRED = 1
const ALONE = 2
const UNSURE = 3
const WAITING = 4

// `best` answers a row index, or one of these.
const NO_ONE = -1
const UNKNOWN = -2

const REQUERY_MIN_K = 64
const REQUERY_GROWTH = 4

/**
 * Mutual nearest neighbours under the filters, repeated on the remainder,
 * computed without literal rounds.
 *
 * Why that is the same rule: allowed pairs (edges) are totally ordered by
 * (similarity desc, lower id, higher id), and a persona's best, "most
 * similar, ties to the lower id", is its first remaining edge in that
 * order (for a fixed persona the two orders agree), so a mutual-best pair
 * is an edge that beats every other edge at both its ends. Such an edge
 * stays mutual-best whatever else pairs (pairing only removes rivals), and
 * the best remaining edge overall is always one, so taking mutual-best
 * edges in any order, a round at a time or one at a time, ends in the same
 * matching: greedy by that order. (Greedy "take the highest edge first"
 * over one-sided bests would differ; this is not that.)
 *
 * How: from each open persona follow best-pointers x → best(x) →
 * best(best(x)) ...; edges strictly increase along the chain, so it ends
 * at a mutual pair, which forms; then the chain resumes from the persona
 * below it. A persona whose list is used up, or whose best in the list
 * could be beaten by a row the search cut off (`bound`), is re-queried
 * with a larger k over the remainder before anything depending on it is
 * decided; those waiting on it are revisited in the next phase.
 */
export const matchMutualBest = (
  packed: PackedCandidates,
  source: NeighbourSource,
  { k }: { k: number },
): { pairs: [number, number][]; phases: number; requeried: number } => {
  const { count, ids } = packed
  const status = new Uint8Array(count)
  const waitedAt = new Int32Array(count)
  const stack = new Int32Array(count)
  const onStack = new Uint8Array(count)
  const paired: number[] = []
  let departed: number[] = []
  let pending: number[] = []

  const lists: CandidateLists = buildLists(packed, source.search(undefined, undefined, k + 1))

  const isPaired = (row: number) => status[row] === PAIRED

  /** The row's best remaining allowed candidate, NO_ONE, or UNKNOWN if its list cannot tell. */
  const best = (x: number): number => {
    const at = bestEntry(packed, lists, x, isPaired)
    if (at < 0) return lists.bound[x] === -Infinity ? NO_ONE : UNKNOWN
    return lists.exact[x]![at]! > lists.bound[x]! ? lists.rows[x]![at]! : UNKNOWN
  }
  /** The exact similarity of x's current best (valid right after `best(x)` named a row). */
  const bestScore = (x: number) => lists.exact[x]![lists.bestAt[x]!]!

  /**
   * `b`'s best, knowing `x` (allowed, remaining) offers an edge of score `s`.
   * With exact lists the offer never wins unless `x` is already `b`'s best;
   * with HNSW lists it keeps "best" consistent when `b`'s list missed `x`,
   * which keeps chains strictly increasing (no cycles).
   */
  const bestWithOffer = (b: number, x: number, s: number): number => {
    const c = best(b)
    if (c === NO_ONE || c === x) return x
    if (c === UNKNOWN) return s > lists.bound[b]! ? x : UNKNOWN
    const sc = bestScore(b)
    return s > sc || (s === sc && ids[x]! < ids[c]!) ? x : c
  }

  const markUnsure = (x: number) => {
    if (status[x] === UNSURE) return
    status[x] = UNSURE
    pending.push(x)
  }

  const resolveFrom = (start: number) => {
    let top = 0
    stack[top++] = start
    onStack[start] = 1
    while (top > 0) {
      const x = stack[top - 1]!
      if (status[x] !== OPEN) {
        onStack[x] = 0
        top--
        continue
      }
      const b = best(x)
      if (b < 0) {
        if (b === NO_ONE) {
          status[x] = ALONE
          departed.push(x)
        } else markUnsure(x)
        continue
      }
      // A row still waiting since the last pair formed waits on the same unresolved row.
      if (status[b] === WAITING && waitedAt[b] === paired.length) {
        status[x] = WAITING
        waitedAt[x] = paired.length
        continue
      }
      const bb = bestWithOffer(b, x, bestScore(x))
      if (bb === x) {
        status[x] = PAIRED
        status[b] = PAIRED
        paired.push(x, b)
        departed.push(x, b)
        continue
      }
      if (bb === UNKNOWN) {
        markUnsure(b)
        status[x] = WAITING
        waitedAt[x] = paired.length
        continue
      }
      // b prefers someone else: follow it. Edges only increase along a chain, so b is new to it.
      if (onStack[b]) {
        for (let i = 0; i < top; i++) {
          const y = stack[i]!
          const by = best(y)
          console.log(
            'stack',
            i,
            'row',
            y,
            'id',
            ids[y],
            'status',
            status[y],
            'best',
            by,
            by >= 0 ? bestScore(y) : '',
            'bound',
            lists.bound[y],
            'listlen',
            lists.rows[y]!.length,
            'bestAt',
            lists.bestAt[y],
            'cursor',
            lists.cursor[y],
          )
        }
        console.log('x', x, 'b', b, 'bb', bb, 'phase', phases)
        throw new Error(`pairing: best-pointer cycle at row ${b} (internal error)`)
      }
      status[b] = OPEN
      stack[top++] = b
      onStack[b] = 1
    }
  }

  let phases = 0
  let requeried = 0
  // The first phase walks every row in arrival order, later ones the unresolved rows.
  let order: Int32Array | undefined
  for (;;) {
    phases++
    const length = order ? order.length : count
    for (let r = 0; r < length; r++) {
      const row = order ? order[r]! : r
      if (status[row] === OPEN) resolveFrom(row)
    }
    // With HNSW lists an UNSURE row can still be taken by a better offer: drop those.
    pending = pending.filter((row) => status[row] === UNSURE)
    if (pending.length === 0) break
    const remainder: number[] = []
    for (let row = 0; row < count; row++)
      if (status[row] === UNSURE || status[row] === WAITING) remainder.push(row)
    source.forget(Int32Array.from(departed))
    departed = []
    const queries = Int32Array.from(pending.sort((a, b) => a - b))
    let widest = 0
    for (const row of queries) widest = Math.max(widest, lists.searched[row]!)
    const k = Math.min(remainder.length, Math.max(REQUERY_MIN_K, REQUERY_GROWTH * widest))
    const found: NeighbourLists = source.search(queries, Int32Array.from(remainder), k)
    mergeRequery(packed, lists, queries, found, isPaired)
    requeried += queries.length
    pending = []
    for (const row of remainder) status[row] = OPEN
    order = Int32Array.from(remainder)
  }

  const pairs: [number, number][] = []
  for (let p = 0; p < paired.length; p += 2) {
    const a = ids[paired[p]!]!
    const b = ids[paired[p + 1]!]!
    pairs.push(a < b ? [a, b] : [b, a])
  }
  pairs.sort((p, q) => p[0] - q[0])
  return { pairs, phases, requeried }
}

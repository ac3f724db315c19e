import {
  bestEntry,
  buildLists,
  type CandidateLists,
  entryRow,
  mergeRequery,
} from './pairing-lists.ts'
import type { PackedCandidates } from './pairing-matrix.ts'
import type { NeighbourLists, NeighbourSource } from './pairing-neighbours.ts'

/** What one pairing run did, for benches and logs. */
export type PairingStats = {
  mode: 'exact' | 'approximate'
  /** Passes over the unresolved personas; each after the first follows a re-query. */
  phases: number
  /** Personas re-queried, summed over phases. */
  requeried: number
  /** Pairs dropped because a persona was already paired (an inconsistency; 0 expected). */
  conflicts: number
  pairs: number
  /** Where the run's time went (ms): the first lists, walking the chains, the re-queries. */
  stepsMs: { lists: number; resolve: number; requery: number }
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

// A re-query asks for 4x the row's last k (at least 64): an exact re-query costs the same
// whatever k is, and a larger step means fewer phases for rows whose filters reject most.
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
 * matching: the global greedy matching by that order. One-sided greedy
 * (each persona in turn takes its best, so A takes B while B and C prefer
 * each other) differs, and is not what this does.
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
  options: { k: number },
): MutualBestResult => finish(mutualBestRun(packed, source, options))

/** What a run answers: every pair (`[lower id, higher id]`, by the lower id) and what it did. */
export type MutualBestResult = Omit<PairingStats, 'mode' | 'pairs'> & { pairs: [number, number][] }

/**
 * Runs a generator to its end and answers what it returns: the pairing as
 * one call, for callers that do not take its pairs early.
 */
export const finish = <T>(run: Generator<unknown, T>): T => {
  for (;;) {
    const step = run.next()
    if (step.done) return step.value
  }
}

/**
 * `matchMutualBest` as a generator: before each re-query it yields the
 * pairs formed since the last yield (after the first phase, most of them;
 * possibly none), which are final whatever later phases do (a pair never
 * comes apart), so a beat can write them while the re-queries run. It
 * returns every pair, those yielded included.
 */
export function* mutualBestRun(
  packed: PackedCandidates,
  source: NeighbourSource,
  { k }: { k: number },
): Generator<[number, number][], MutualBestResult> {
  const { count, ids } = packed
  const status = new Uint8Array(count)
  const waitedAt = new Int32Array(count)
  const stack = new Int32Array(count)
  const onStack = new Uint8Array(count)
  const offered = new Float64Array(count)
  const paired: number[] = []
  let departed: number[] = []
  let pending: number[] = []

  const stepsMs = { lists: 0, resolve: 0, requery: 0 }
  let mark = performance.now()
  const lap = (step: keyof typeof stepsMs) => {
    const now = performance.now()
    stepsMs[step] += now - mark
    mark = now
  }
  const lists: CandidateLists = buildLists(packed, source.search(undefined, undefined, k + 1))
  lap('lists')

  const isPaired = (row: number) => status[row] === PAIRED

  /** The row's best in its own list, NO_ONE, or UNKNOWN if the list cannot tell. */
  const best = (x: number): number => {
    const at = bestEntry(packed, lists, x, isPaired)
    if (at < 0) return lists.bound[x] === -Infinity ? NO_ONE : UNKNOWN
    return lists.bestScore[x]! > lists.bound[x]! ? entryRow(lists, x, at) : UNKNOWN
  }

  // The exact similarity of the last row `choose` named.
  let chosenScore = 0
  /**
   * x's best, knowing that row `o` (allowed, remaining; -1 for none) is
   * offering an edge of score `so` because x is o's best. With exact lists
   * an offer never wins unless o is already x's best; with HNSW lists x's
   * list may have missed o, and counting the offer keeps every persona's
   * choice consistent with the edge order, so chains strictly increase.
   */
  const choose = (x: number, o: number, so: number): number => {
    const c = best(x)
    if (c >= 0 && c !== o) {
      const sc = lists.bestScore[x]!
      if (o < 0 || sc > so || (sc === so && ids[c]! < ids[o]!)) {
        chosenScore = sc
        return c
      }
    } else if (o < 0 || (c === UNKNOWN && !(so > lists.bound[x]!))) return c
    chosenScore = so
    return o
  }

  const markUnsure = (x: number) => {
    if (status[x] === UNSURE) return
    status[x] = UNSURE
    pending.push(x)
  }
  const pair = (x: number, y: number) => {
    status[x] = PAIRED
    status[y] = PAIRED
    paired.push(x, y)
    departed.push(x, y)
  }

  // The stack is a chain: each row's best is the row above it, by an edge of score
  // offered[level], and those scores strictly increase upwards.
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
      // The row below offers its edge only while it is unpaired: a row further up the chain
      // can have paired with it meanwhile (with HNSW lists, x can name a row deeper in the
      // stack that did not list x, and take it). Offering it still paired it twice.
      const under = top > 1 ? stack[top - 2]! : -1
      const below = under >= 0 && status[under] === OPEN ? under : -1
      const b = choose(x, below, below >= 0 ? offered[top - 1]! : 0)
      if (b === NO_ONE) {
        status[x] = ALONE
        departed.push(x)
        continue
      }
      if (b === UNKNOWN) {
        markUnsure(x)
        continue
      }
      // The row below chose x, and x chooses it back.
      if (b === below) {
        pair(x, b)
        continue
      }
      const s = chosenScore
      const bb = choose(b, x, s)
      if (bb === x) pair(x, b)
      else if (bb === UNKNOWN || (status[b] === WAITING && waitedAt[b] === paired.length)) {
        // b's choice hangs on a row to be re-queried; a row still waiting since the last
        // pair formed waits on the same one.
        if (bb === UNKNOWN) markUnsure(b)
        status[x] = WAITING
        waitedAt[x] = paired.length
      } else {
        // b prefers someone else: follow it. Edges only increase along a chain.
        if (onStack[b]) throw new Error(`pairing: best-pointer cycle at row ${b} (internal error)`)
        status[b] = OPEN
        offered[top] = s
        stack[top++] = b
        onStack[b] = 1
      }
    }
  }

  // A persona is in one pair at most, whatever the lists said. At 200,000 personas a run over
  // the graph once named a persona twice: the chain's offer from a row already paired (fixed
  // above, pairing-engine.test.ts). This stays as a net: the first pair formed stands; a later
  // one naming a paired persona is dropped and counted, and its other persona waits.
  const used = new Uint8Array(count)
  const settled: [number, number][] = []
  let conflicts = 0
  let checked = 0
  /** The pairs formed since the last call, through the net (the earlier ones stay in `settled`). */
  const settle = () => {
    const fresh: [number, number][] = []
    for (; checked < paired.length; checked += 2) {
      const x = paired[checked]!
      const y = paired[checked + 1]!
      if (used[x] || used[y]) {
        conflicts++
        continue
      }
      used[x] = 1
      used[y] = 1
      const a = ids[x]!
      const b = ids[y]!
      fresh.push(a < b ? [a, b] : [b, a])
    }
    return fresh
  }
  const takeEarly = (fresh: [number, number][]) => {
    for (const pair of fresh) settled.push(pair)
    return fresh
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
    lap('resolve')
    // With HNSW lists an UNSURE row can still be taken by a better offer: drop those.
    pending = pending.filter((row) => status[row] === UNSURE)
    if (pending.length === 0) break
    source.forget(Int32Array.from(departed))
    departed = []
    // Every pair formed so far is final: handed out (none is a hand-out too), the beat writes
    // them while the rest pair, and the caller turns its event loop, where a graph the source
    // let go of in `forget` is freed before the re-query builds the next.
    yield takeEarly(settle())
    mark = performance.now()
    const remainder: number[] = []
    for (let row = 0; row < count; row++)
      if (status[row] === UNSURE || status[row] === WAITING) remainder.push(row)
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
    lap('requery')
  }

  const pairs = [...settled, ...settle()]
  pairs.sort((p, q) => p[0] - q[0])
  lap('resolve')
  for (const step of Object.keys(stepsMs) as Array<keyof typeof stepsMs>)
    stepsMs[step] = Math.round(stepsMs[step])
  return { pairs, phases, requeried, conflicts, stepsMs }
}

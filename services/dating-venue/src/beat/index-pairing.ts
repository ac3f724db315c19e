// A pairing run over the kept index, as the index process runs it (index-process.ts): the
// staged candidates packed into one matrix the pool adopts, paired, and the pool left holding
// who still waits. Apart from the process so that a bench can run the same code in its own.
import type { Prefs } from '../heart/heart-schema.ts'
import { collect } from './collect.ts'
import type { MatchPool } from './match-pool.ts'
import { pairCandidatesRun } from './pairing.ts'
import { finish, type PairingStats } from './pairing-engine.ts'
import type { PairingCandidate } from './pairing-matrix.ts'

/** The candidates a beat hands the index process: ids and their hearts' prefs, in arrival order. */
export type StagedCandidates = { ids: number[]; prefs: Array<Prefs | undefined> }

export type PairAnswer = {
  pairs: Float64Array
  stats: PairingStats | undefined
  /** Personas in the index after the run (the unpaired). */
  waiting: number
  /** Wall time inside this process: the search and pairing, and saving the snapshot. */
  pairMs: number
  saveMs: number
  /** This process's memory as the run ended (its lists not yet collected): where the peak goes. */
  memory: { rss: number; heapUsed: number; arrayBuffers: number }
  /** Packing the run's matrix, and putting the unpaired back afterwards (ms). */
  stepsMs: { pack: number; restore: number }
}

/** Rows packed for a run between two collections (100 MB of 512-d vectors). */
const ADOPT_SLICE = 50_000

/**
 * Pairs the staged candidates over the pool (which the replica synced to
 * them first), then keeps who is still waiting: the paired leave, the
 * unpaired stay (or come back, if the run took them out as having no
 * partner left), and the snapshot is saved.
 */
export const pairStaged = (
  index: MatchPool,
  staged: StagedCandidates,
  options: PairOptions,
): PairAnswer => finish(pairStagedRun(index, staged, options))

/** What the index process answers `pair` and `pair-next`: the first pairs early, then the answer. */
export type PairStep = { done: false; settled: Float64Array } | { done: true; answer: PairAnswer }

export type PairOptions = {
  /** Pairs that courted before, flattened (lower id, higher id, ...). */
  allowed: Float64Array
  exactUpTo: number
  k?: number | undefined
}

/** Pairs flattened (lower id, higher id, ...): how they cross the pipe. */
const flat = (pairs: ReadonlyArray<readonly [number, number]>) => {
  const out = new Float64Array(pairs.length * 2)
  for (let i = 0; i < pairs.length; i++) {
    out[2 * i] = pairs[i]![0]
    out[2 * i + 1] = pairs[i]![1]
  }
  return out
}

/**
 * `pairStaged` as a run that yields the pairs formed so far (flattened)
 * before each re-query: the index process hands them to the beat, which
 * writes them meanwhile. Its answer holds every pair.
 */
export function* pairStagedRun(
  index: MatchPool,
  { ids, prefs }: StagedCandidates,
  { allowed, exactUpTo, k }: PairOptions,
): Generator<Float64Array, PairAnswer> {
  let started = performance.now()
  // Taken before pairing: an approximate run takes personas out of the pool as it goes. The
  // vectors are packed into one matrix that the run uses in place and the pool views: one
  // copy of them while the run lasts, not three (the pool's, the run's, and this list's).
  const present = ids.flatMap((id, i) => (index.has(id) ? [i] : []))
  const d = present.length > 0 ? index.vectorOf(ids[present[0]!]!)!.length : 0
  const matrix = new Float32Array(present.length * d)
  const waiting: PairingCandidate[] = new Array(present.length)
  // The pool adopts the rows as they are copied, and the copies they replace are collected
  // every ADOPT_SLICE rows: the two copies of every vector (800 MB at 200,000) never coexist.
  for (let from = 0; from < present.length; from += ADOPT_SLICE) {
    const to = Math.min(present.length, from + ADOPT_SLICE)
    for (let row = from; row < to; row++) {
      const at = present[row]!
      const vector = matrix.subarray(row * d, (row + 1) * d)
      vector.set(index.vectorOf(ids[at]!)!)
      waiting[row] = { id: ids[at]!, vector, prefs: prefs[at] }
    }
    index.adopt(
      Float64Array.from({ length: to - from }, (_, i) => waiting[from + i]!.id),
      matrix.subarray(from * d, to * d),
    )
    collect()
  }
  const packMs = performance.now() - started
  const courted = new Map<number, Set<number>>()
  for (let p = 0; p < allowed.length; p += 2) {
    const known = courted.get(allowed[p]!)
    if (known) known.add(allowed[p + 1]!)
    else courted.set(allowed[p]!, new Set([allowed[p + 1]!]))
  }
  let stats: PairingStats | undefined
  const run = pairCandidatesRun(waiting.length < 2 ? [] : waiting, {
    allowed: courted.size > 0 ? (a, b) => !courted.get(a)?.has(b) : undefined,
    pool: index,
    exactUpTo,
    ...(k ? { k } : {}),
    onStats: (run) => {
      stats = run
    },
  })
  let proposed: [number, number][]
  for (;;) {
    const step = run.next()
    if (step.done) {
      proposed = step.value
      break
    }
    // The time this run waits for the beat to ask for the rest is not the run's.
    const suspended = performance.now()
    yield flat(step.value)
    started += performance.now() - suspended
  }
  const { rss, heapUsed, arrayBuffers } = process.memoryUsage()
  const restoring = performance.now()
  const paired = new Set<number>()
  for (const [a, b] of proposed) paired.add(a).add(b)
  index.remove(paired)
  index.add(waiting.filter((c) => !paired.has(c.id) && !index.has(c.id)))
  // Who still waits views the run's matrix: their own copies let it go.
  index.detach()
  collect()
  const pairMs = performance.now() - started
  index.save()
  return {
    pairs: flat(proposed),
    stats,
    waiting: index.size,
    pairMs,
    saveMs: performance.now() - started - pairMs,
    memory: { rss, heapUsed, arrayBuffers },
    stepsMs: {
      pack: Math.round(packMs),
      restore: Math.round(started + pairMs - restoring),
    },
  } satisfies PairAnswer
}

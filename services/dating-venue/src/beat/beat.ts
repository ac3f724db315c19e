import { randomUUID } from 'node:crypto'
import { admitPending } from '../admission/admission.ts'
import type { VenueDeps } from '../deps.ts'
import { embedMissing } from '../persona-vectors/embed-personas.ts'
import {
  type FormedCouple,
  formCouples,
  notifyCouples,
  recordBeat,
  writeIntros,
} from './beat-writes.ts'
import { breathe, type Candidate, loadCandidates, previousPairs } from './candidates.ts'
import { syncIndex } from './index-follow.ts'
import type { PairAnswer } from './index-pairing.ts'
import { adjacentPairs } from './pairing-adjacent.ts'
import type { PairingStats } from './pairing-engine.ts'

// One beat at a time across replicas (a session-level advisory lock).
export const BEAT_LOCK = 7_246_010

export type BeatResult = {
  cycleId: string
  /** Pairs the matchmaker proposed this cycle. */
  pairs: number
  /** Couples formed (a re-run of a cycle forms none twice). */
  created: number
  admitted: number
  semantic: boolean
  note?: string
  coupleIds: number[]
  /**
   * The kept index: vectors read from the database this beat (newcomers),
   * personas that left it before pairing, and how many wait after it.
   */
  pool: { read: number; left: number; waiting: number }
  /** Wall time of each phase, for operators and the benchmark. */
  phasesMs: Record<'admit' | 'embed' | 'load' | 'pair' | 'intros' | 'form' | 'notify', number>
  /**
   * What the pairing run did (semantic beats): `conflicts` counts pairs
   * dropped because they named a persona already paired (0 expected);
   * `searchMs` is the run inside the index process, `saveMs` its snapshot.
   */
  pairing?: PairingStats & {
    searchMs: number
    saveMs: number
    memory: PairAnswer['memory']
    /** The index process's own steps: packing, the run's (lists, resolve, requery), restoring. */
    stepsMs: PairingStats['stepsMs'] & PairAnswer['stepsMs']
    /** Pairs of the first phase, written while the rest paired. */
    writtenWhilePairing: number
  }
  /**
   * Inside the phases (ms): reading the candidates, their history and
   * syncing the index (load); staging their filters (pair); writing the
   * couples formed while the pairing went on (`whilePairing`,
   * overlapping `pair`; `intros` and `form` are what was left after it).
   */
  stepsMs: Record<'candidates' | 'history' | 'sync' | 'stage' | 'whilePairing', number>
}

const unflatten = (flat: Float64Array) => {
  const pairs: Array<[number, number]> = new Array(flat.length / 2)
  for (let p = 0; p < pairs.length; p++) pairs[p] = [flat[2 * p]!, flat[2 * p + 1]!]
  return pairs
}

// Candidates go to the index process a slice at a time (ids and filters, copied over the pipe).
const STAGE_SLICE = 5000

/**
 * Pairs the candidates in the index process: syncs the kept index with
 * them (newcomers' vectors in, who no longer waits out), hands it the
 * candidates and the pairs that courted before, and lets it pair and keep
 * who is still waiting. This process only waits: the graph, the search and
 * the pairing never hold its event loop.
 */
const pairInIndex = async (
  deps: VenueDeps,
  candidates: readonly Candidate[],
  courted: Float64Array,
  lap: (phase: 'load') => void,
  step: (name: 'sync' | 'stage') => void,
  onSettled: (pairs: Array<[number, number]>) => void,
) => {
  const synced = await syncIndex(
    deps,
    candidates.filter((c) => c.hasVector).map((c) => c.id),
  )
  step('sync')
  lap('load')
  for (let first = 0; first < candidates.length; first += STAGE_SLICE) {
    const slice = candidates.slice(first, first + STAGE_SLICE)
    await deps.matchPool.stage(
      slice.map((c) => c.id),
      slice.map((c) => c.prefs),
    )
    await breathe()
  }
  step('stage')
  const answer = await deps.matchPool.pair({
    courted,
    exactUpTo: deps.matchPool.options.exactUpTo,
    onSettled: (pairs) => onSettled(unflatten(pairs)),
  })
  const proposed = unflatten(answer.pairs)
  if (answer.stats && answer.stats.conflicts > 0)
    deps.logger.warn(answer.stats, 'pairing named a persona twice; the later pairs dropped')
  return {
    proposed,
    pool: { ...synced, waiting: answer.waiting },
    pairing: answer.stats
      ? {
          ...answer.stats,
          searchMs: Math.round(answer.pairMs),
          saveMs: Math.round(answer.saveMs),
          memory: answer.memory,
          stepsMs: { ...answer.stats.stepsMs, ...answer.stepsMs },
        }
      : undefined,
  }
}

/**
 * One match beat. Admits pending personas while room is free, embeds
 * admitted personas missing a vector, pairs the candidates (mutual nearest
 * neighbours under the hard filters, in the index process; or adjacent
 * pairing under the same filters when semantic matching is unavailable),
 * forms the couples with their opening lines, and tells the agents.
 */
export const beatOnce = async (deps: VenueDeps, cycleId: string): Promise<BeatResult> => {
  const phasesMs = { admit: 0, embed: 0, load: 0, pair: 0, intros: 0, form: 0, notify: 0 }
  let mark = performance.now()
  const lap = (phase: keyof typeof phasesMs) => {
    const now = performance.now()
    phasesMs[phase] = Math.round(now - mark)
    mark = now
  }
  const stepsMs = { candidates: 0, history: 0, sync: 0, stage: 0, whilePairing: 0 }
  let stepMark = 0
  const step = (name: keyof typeof stepsMs) => {
    const now = performance.now()
    stepsMs[name] = Math.round(now - stepMark)
    stepMark = now
  }
  const admitted = await admitPending(deps)
  lap('admit')
  let semantic = true
  let note: string | undefined
  try {
    await embedMissing(deps)
  } catch {
    semantic = false
    note = 'semantic matching unavailable: the embedder is down; adjacent pairing under the filters'
  }
  lap('embed')
  stepMark = performance.now()
  const candidates = await loadCandidates(deps, cycleId)
  step('candidates')
  if (semantic && candidates.some((candidate) => !candidate.hasVector)) {
    semantic = false
    note =
      'semantic matching unavailable: a persona has no vector after a retry; adjacent pairing under the filters'
  }
  const { allowed, courted } = await previousPairs(
    deps,
    cycleId,
    candidates.map((c) => c.id),
  )
  step('history')
  // One turn of the index until the couples are written: the paired have left the index by
  // then, and a background sync in between would read them as still waiting (no seat yet)
  // and put every one of them back (at 200,000 personas, minutes of inserts).
  const byId = new Map(candidates.map((c) => [c.id, c]))
  const { proposed, pool, pairing, made } = await deps.matchPool.exclusive(async () => {
    // Pairs the run hands out before each re-query are final: they are written while the index
    // process re-queries the rest (PostgreSQL's cores and the index process's, at once: at
    // 200,000 personas the first phase's 77 % of the pairs, and most of the writes' 24 s,
    // overlap the re-queries' 20 s).
    let early: Promise<FormedCouple[]> = Promise.resolve([])
    const settledEarly = new Set<number>()
    const write = async (pairs: Array<[number, number]>) =>
      formCouples(deps, cycleId, semantic, await writeIntros(deps, pairs, byId), { event: false })
    // Only where the database is another process: PGlite runs in this one, and writing there
    // while the index process pairs would hold the requests the index process keeps answered.
    const writesElsewhere = deps.database.kind === 'postgres'
    let writing: number | undefined
    const run = await pairAll((pairs) => {
      if (!writesElsewhere || pairs.length === 0) return
      // From the first early write to the last one's end.
      writing ??= performance.now()
      const since = writing
      for (const [a] of pairs) settledEarly.add(a)
      // Chained, not replaced: a run handing pairs out twice must not drop the first writes.
      const before = early
      early = Promise.all([before, write(pairs)])
        .then(([earlier, now]) => [...earlier, ...now])
        .finally(() => {
          stepsMs.whilePairing = Math.round(performance.now() - since)
        })
      // Awaited below; until then a failure must not count as unhandled.
      early.catch(() => {})
    }).catch(async (error: unknown) => {
      // A run that fails after handing pairs out ends the beat only once their writes have
      // (the lock is not released under them).
      await early.catch(() => {})
      throw error
    })
    lap('pair')
    const rest = run.proposed.filter(([a, b]) => !settledEarly.has(a) && !settledEarly.has(b))
    const withIntros = await writeIntros(deps, rest, byId)
    lap('intros')
    const made = [
      ...(await early),
      ...(await formCouples(deps, cycleId, semantic, withIntros, { event: false })),
    ].sort((x, y) => x.id - y.id)
    await recordBeat(deps, cycleId, semantic, made.length)
    lap('form')
    const pairing = run.pairing && { ...run.pairing, writtenWhilePairing: settledEarly.size }
    return { ...run, pairing, made }
  })
  await notifyCouples(deps, made).catch((error: unknown) =>
    deps.logger.error({ err: error }, 'notifying couples failed'),
  )
  lap('notify')
  return {
    cycleId,
    pairs: proposed.length,
    created: made.length,
    admitted: admitted.length,
    semantic,
    ...(note ? { note } : {}),
    coupleIds: made.map((couple) => couple.id),
    pool,
    phasesMs,
    stepsMs,
    ...(pairing ? { pairing } : {}),
  }

  async function pairAll(onSettled: (pairs: Array<[number, number]>) => void) {
    if (semantic && candidates.length >= 2)
      return pairInIndex(deps, candidates, courted, lap, step, onSettled)
    const synced = await syncIndex(
      deps,
      candidates.filter((c) => c.hasVector).map((c) => c.id),
    )
    step('sync')
    lap('load')
    const proposed =
      candidates.length < 2
        ? []
        : adjacentPairs(
            candidates.map((c) => ({ id: c.id, prefs: c.prefs })),
            { allowed },
          )
    await deps.matchPool.remove(proposed.flat())
    const waiting = (await deps.matchPool.status())?.size ?? 0
    return { proposed, pool: { ...synced, waiting }, pairing: undefined }
  }
}

/**
 * Runs a beat unless one is running on any replica (`wait` queues behind
 * it instead). The scheduled beat runs on the replica holding the kept
 * index, or on one that takes it over (the holder stopped): the others skip
 * their tick and keep no index. An operator's beat runs wherever it lands;
 * a replica that does not hold the index builds one for that beat and lets
 * it go after, and the holder's next sync takes out who it paired.
 */
export const runBeat = async (
  deps: VenueDeps,
  {
    cycleId = `manual-${randomUUID()}`,
    wait = false,
    scheduled = false,
  }: { cycleId?: string; wait?: boolean; scheduled?: boolean } = {},
): Promise<{ ran: true; value: BeatResult } | { ran: false }> => {
  const holding = await deps.matchPool.hold()
  if (!holding && scheduled) return { ran: false }
  return deps.database.withLock(
    BEAT_LOCK,
    async () => {
      try {
        return await beatOnce(deps, cycleId)
      } finally {
        if (!deps.matchPool.holding) await deps.matchPool.release()
      }
    },
    { wait },
  )
}

/** The scheduled beat's cycle: one per interval slot, so replicas ticking together share it. */
export const scheduledCycleId = (intervalMs: number, now = Date.now()) =>
  `beat-${intervalMs}-${Math.floor(now / intervalMs)}`

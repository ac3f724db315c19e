import { randomUUID } from 'node:crypto'
import { admitPending } from '../admission/admission.ts'
import type { VenueDeps } from '../deps.ts'
import { embedMissing } from '../persona-vectors/embed-personas.ts'
import { formCouples, notifyCouples, writeIntros } from './beat-writes.ts'
import { type Candidate, loadCandidates, loadVectors, previousPairs } from './candidates.ts'
import { adjacentPairs, pairCandidates } from './pairing.ts'

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
}

/**
 * Brings the kept pool in line with this beat's candidates: personas no
 * longer waiting (paired elsewhere, erased, held, seats full) go out, and
 * only newcomers' vectors are read from the database and go in.
 */
const syncPool = async (deps: VenueDeps, candidates: readonly Candidate[]) => {
  const { stale, missing } = deps.matchPool.diff(
    candidates.filter((c) => c.hasVector).map((c) => c.id),
  )
  deps.matchPool.remove(stale)
  if (missing.length > 0) deps.matchPool.add(await loadVectors(deps, missing))
  return { read: missing.length, left: stale.length }
}

/**
 * After pairing the pool holds who is still waiting: the paired leave (an
 * approximate run took most out already), the unpaired stay (or come back,
 * if the run took them out as having no partner left), and the pool is saved.
 */
const settlePool = (
  deps: VenueDeps,
  waiting: ReadonlyArray<{ id: number; vector: Float32Array }>,
  proposed: ReadonlyArray<readonly [number, number]>,
) => {
  const paired = new Set(proposed.flat())
  deps.matchPool.remove(paired)
  deps.matchPool.add(waiting.filter((c) => !paired.has(c.id) && !deps.matchPool.has(c.id)))
  deps.matchPool.save()
}

/**
 * One match beat. Admits pending personas while room is free, embeds
 * admitted personas missing a vector, pairs the candidates (mutual nearest
 * neighbours under the hard filters, or adjacent pairing under the same
 * filters when semantic matching is unavailable), forms the couples with
 * their opening lines, and tells the agents.
 */
export const beatOnce = async (deps: VenueDeps, cycleId: string): Promise<BeatResult> => {
  const phasesMs = { admit: 0, embed: 0, load: 0, pair: 0, intros: 0, form: 0, notify: 0 }
  let mark = performance.now()
  const lap = (phase: keyof typeof phasesMs) => {
    const now = performance.now()
    phasesMs[phase] = Math.round(now - mark)
    mark = now
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
  const candidates = await loadCandidates(deps, cycleId)
  if (semantic && candidates.some((candidate) => !candidate.hasVector)) {
    semantic = false
    note =
      'semantic matching unavailable: a persona has no vector after a retry; adjacent pairing under the filters'
  }
  const allowed = await previousPairs(
    deps,
    cycleId,
    candidates.map((c) => c.id),
  )
  const { proposed, pool } = await deps.matchPool.exclusive(async () => {
    const synced = await syncPool(deps, candidates)
    // Taken before pairing: an approximate run takes personas out of the pool as it goes.
    const waiting = candidates.flatMap((c) => {
      const vector = deps.matchPool.vectorOf(c.id)
      return vector ? [{ id: c.id, vector, prefs: c.prefs }] : []
    })
    lap('load')
    const proposed: Array<[number, number]> =
      candidates.length < 2
        ? []
        : semantic
          ? pairCandidates(waiting, {
              allowed,
              pool: deps.matchPool,
              exactUpTo: deps.matchPool.options.exactUpTo,
              onStats: (stats) => {
                if (stats.conflicts > 0)
                  deps.logger.warn(stats, 'pairing named a persona twice; the later pairs dropped')
              },
            })
          : adjacentPairs(
              candidates.map((c) => ({ id: c.id, prefs: c.prefs })),
              { allowed },
            )
    settlePool(deps, waiting, proposed)
    return { proposed, pool: { ...synced, waiting: deps.matchPool.size } }
  })
  lap('pair')
  const withIntros = await writeIntros(deps, proposed, new Map(candidates.map((c) => [c.id, c])))
  lap('intros')
  const made = await formCouples(deps, cycleId, semantic, withIntros)
  lap('form')
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
  }
}

/** Runs a beat unless one is running on any replica (`wait` queues behind it instead). */
export const runBeat = (
  deps: VenueDeps,
  { cycleId = `manual-${randomUUID()}`, wait = false }: { cycleId?: string; wait?: boolean } = {},
) => deps.database.withLock(BEAT_LOCK, () => beatOnce(deps, cycleId), { wait })

/** The scheduled beat's cycle: one per interval slot, so replicas ticking together share it. */
export const scheduledCycleId = (intervalMs: number, now = Date.now()) =>
  `beat-${intervalMs}-${Math.floor(now / intervalMs)}`

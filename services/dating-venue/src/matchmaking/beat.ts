import { randomUUID } from 'node:crypto'
import { pgArray, rowsOf } from '@agents/service-kit/db'
import { sql } from 'drizzle-orm'
import { admitPending } from '../admission/admission.ts'
import type { VenueDeps } from '../deps.ts'
import { vectorFromBytes } from '../embeddings/index.ts'
import type { Heart } from '../heart/heart-schema.ts'
import { embedMissing } from '../persona-vectors/embed-personas.ts'
import { formCouples, notifyCouples, writeIntros } from './beat-writes.ts'
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
  /** Wall time of each phase, for operators and the benchmark. */
  phasesMs: Record<'admit' | 'embed' | 'load' | 'pair' | 'intros' | 'form' | 'notify', number>
}

type Candidate = {
  id: number
  handle: string
  heart: Heart | string
  vector: Float32Array | undefined
  prefs: Heart['prefs']
}

/** Admitted personas with a free courtship seat, in arrival order, with their vector of the current model. */
// A persona is paired at most once a cycle: one coupled by an earlier run of
// this cycle (a second replica past the lock, a retry) is not a candidate.
const loadCandidates = async (deps: VenueDeps, cycleId: string): Promise<Candidate[]> => {
  const result = await deps.database.db.execute(sql`
    SELECT p.id, p.handle, p.heart, v.vector, v.dimension
    FROM personas p
    LEFT JOIN persona_vectors v ON v.persona_id = p.id AND v.model_id = ${deps.embedder.modelId}
    WHERE p.status = 'admitted'
      AND (SELECT count(*) FROM courtship_seats s WHERE s.persona_id = p.id) < ${deps.maxCourtships}::int
      AND NOT EXISTS (
        SELECT 1 FROM couples c
        WHERE c.cycle_id = ${cycleId} AND (c.persona_a = p.id OR c.persona_b = p.id)
      )
    ORDER BY p.id`)
  return rowsOf<{
    id: number
    handle: string
    heart: Heart | string
    vector: Buffer | null
    dimension: number | null
  }>(result).map((row) => ({
    id: row.id,
    handle: row.handle,
    heart: row.heart,
    vector: row.vector ? vectorFromBytes(row.vector, row.dimension!) : undefined,
    prefs: typeof row.heart === 'object' ? row.heart.prefs : undefined,
  }))
}

/**
 * Pairs that courted in an earlier cycle: the matchmaker does not put them
 * together again. This cycle's own couples do not count, so a run that read
 * its candidates before another run of the cycle formed its couples proposes
 * the same pairs, and the couples' key forms each once.
 */
const previousPairs = async (deps: VenueDeps, cycleId: string, ids: readonly number[]) => {
  if (ids.length === 0) return new Set<string>()
  const result = await deps.database.db.execute(sql`
    SELECT persona_a, persona_b FROM couples
    WHERE persona_a = ANY(${pgArray(ids)}::int[]) AND cycle_id <> ${cycleId}`)
  return new Set(
    rowsOf<{ persona_a: number; persona_b: number }>(result).map(
      (row) => `${row.persona_a}:${row.persona_b}`,
    ),
  )
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
  if (semantic && candidates.some((candidate) => !candidate.vector)) {
    semantic = false
    note =
      'semantic matching unavailable: a persona has no vector after a retry; adjacent pairing under the filters'
  }
  const excluded = await previousPairs(
    deps,
    cycleId,
    candidates.map((c) => c.id),
  )
  const allowed = (a: number, b: number) => !excluded.has(a < b ? `${a}:${b}` : `${b}:${a}`)
  lap('load')
  const proposed: Array<[number, number]> =
    candidates.length < 2
      ? []
      : semantic
        ? pairCandidates(
            candidates.map((c) => ({ id: c.id, vector: c.vector!, prefs: c.prefs })),
            { allowed },
          )
        : adjacentPairs(
            candidates.map((c) => ({ id: c.id, prefs: c.prefs })),
            { allowed },
          )
  lap('pair')
  const withIntros = await writeIntros(deps, proposed, new Map(candidates.map((c) => [c.id, c])))
  lap('intros')
  const made = await formCouples(deps, cycleId, semantic, withIntros)
  lap('form')
  const handles = new Map(candidates.map((c) => [c.id, c.handle]))
  await notifyCouples(deps, made, handles).catch((error: unknown) =>
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

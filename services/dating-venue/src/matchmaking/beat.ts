import { randomUUID } from 'node:crypto'
import { pgArray, rowsOf } from '@agents/service-kit/db'
import { sql } from 'drizzle-orm'
import { admitPending } from '../admission/admission.ts'
import { insertCouples } from '../couples/couple-state.ts'
import type { VenueDeps } from '../deps.ts'
import { vectorFromBytes } from '../embeddings/index.ts'
import { type Heart, heartEmbeddingText } from '../heart/heart-schema.ts'
import { notifyAgent, postNotifications } from '../notify/notify-agent.ts'
import { embedMissing } from '../persona-vectors/embed-personas.ts'
import { writeIntro } from './intro.ts'
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
 * Forms the couples of one cycle in one transaction: couples (unique per
 * cycle and pair, so a re-run or a second replica forms none twice), the
 * two courtship seats (their key keeps a persona in one courtship), and
 * the opening turn. Returns the couples this call created.
 */
const formCouples = async (
  deps: VenueDeps,
  cycleId: string,
  semantic: boolean,
  pairs: ReadonlyArray<{ a: number; b: number; intro: string }>,
) => {
  if (pairs.length === 0) return []
  return deps.database.db.transaction(async (tx) => {
    const made = await insertCouples(tx, { cycleId, semantic, pairs })
    if (made.length === 0) return []
    const introOf = new Map(pairs.map((pair) => [`${pair.a}:${pair.b}`, pair.intro]))
    await tx.execute(sql`
      INSERT INTO turns (couple_id, persona_id, author, body, status)
      SELECT t.couple, NULL, 'matchmaker', t.body, 'published'
      FROM unnest(${pgArray(made.map((c) => c.id))}::int[], ${pgArray(made.map((c) => introOf.get(`${c.persona_a}:${c.persona_b}`)!))}::text[]) AS t(couple, body)`)
    await tx.execute(sql`
      INSERT INTO events (kind, detail)
      VALUES ('beat', ${JSON.stringify({ cycleId, couples: made.length, semantic })}::jsonb)`)
    return made
  })
}

/** Tells both agents of each new couple (signed callback, else the notifications board), in the background. */
const notifyCouples = async (
  deps: VenueDeps,
  couples: ReadonlyArray<{ id: number; persona_a: number; persona_b: number }>,
  handles: Map<number, string>,
) => {
  const ids = couples.flatMap((c) => [c.persona_a, c.persona_b])
  if (ids.length === 0) return
  const endpoints = rowsOf<{ id: number; persona_id: number; callback_url: string | null }>(
    await deps.database.db.execute(sql`
      SELECT id, persona_id, callback_url FROM agent_endpoints
      WHERE status = 'active' AND persona_id = ANY(${pgArray(ids)}::int[])`),
  )
  const endpointOf = new Map(
    endpoints.map((e) => [e.persona_id, { id: e.id, callbackUrl: e.callback_url }]),
  )
  const messages = couples.flatMap((couple) =>
    [
      [couple.persona_a, couple.persona_b],
      [couple.persona_b, couple.persona_a],
    ].map(([self, partner]) => ({
      self: self!,
      handle: handles.get(self!)!,
      message: {
        type: 'match',
        coupleId: couple.id,
        personaId: self,
        partnerHandle: handles.get(partner!),
        turns: `/api/couples/${couple.id}/turns`,
      },
      text: `you were paired with @${handles.get(partner!)} (couple ${couple.id}); reply with POST /api/couples/${couple.id}/turns`,
    })),
  )
  // Agents without a callback read the board: one insert for all of them.
  await postNotifications(
    deps,
    messages
      .filter((m) => !endpointOf.get(m.self)?.callbackUrl)
      .map(({ handle, text }) => ({ handle, text })),
  )
  const jobs = messages
    .filter((m) => endpointOf.get(m.self)?.callbackUrl)
    .map((m) => () => notifyAgent(deps, endpointOf.get(m.self), m.handle, m.message, m.text))
  // Callbacks go out after the beat answers, a few at a time: one slow agent must not hold up the others.
  const workers = Array.from({ length: 8 }, async () => {
    for (let job = jobs.shift(); job; job = jobs.shift())
      await job().catch((error: unknown) => deps.logger.warn({ err: error }, 'notification failed'))
  })
  Promise.all(workers).catch(() => {})
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
  const byId = new Map(candidates.map((c) => [c.id, c]))
  // Composed intros repeat (the same shared values and interests): check each text once per beat.
  const verdicts = new Map<string, ReturnType<VenueDeps['safety']>>()
  const safety: VenueDeps['safety'] = (text, context) => {
    const known = verdicts.get(text)
    if (known) return known
    const verdict = deps.safety(text, context)
    verdicts.set(text, verdict)
    return verdict
  }
  const withIntros = await Promise.all(
    proposed.map(async ([x, y]) => {
      const [a, b] = x < y ? [x, y] : [y, x]
      const left = byId.get(a)!
      const right = byId.get(b)!
      const intro = await writeIntro(
        { safety, chat: deps.chat },
        [left.heart, right.heart],
        [heartEmbeddingText(left.heart), heartEmbeddingText(right.heart)],
      )
      return { a, b, intro: intro.body }
    }),
  )
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

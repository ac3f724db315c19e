import { pgArray, rowsOf } from '@agents/service-kit/db'
import { sql } from 'drizzle-orm'
import type { VenueDeps } from '../deps.ts'
import { vectorFromBytes } from '../embeddings/index.ts'
import type { Heart } from '../heart/heart-schema.ts'

export type Candidate = {
  id: number
  handle: string
  heart: Heart | string
  prefs: Heart['prefs']
  /** Whether a vector of the current model is stored (read only for personas not in the pool). */
  hasVector: boolean
}

/**
 * Admitted personas with a free courtship seat, in arrival order. A persona
 * is paired at most once a cycle: one coupled by an earlier run of this
 * cycle (a second replica past the lock, a retry) is not a candidate.
 * Seats are counted once per persona (a grouped join, not a count per
 * candidate), and vectors are not read here: the pool holds most of them.
 */
export const loadCandidates = async (deps: VenueDeps, cycleId: string): Promise<Candidate[]> => {
  const result = await deps.database.db.execute(sql`
    SELECT p.id, p.handle, p.heart, v.persona_id IS NOT NULL AS has_vector
    FROM personas p
    LEFT JOIN persona_vectors v ON v.persona_id = p.id AND v.model_id = ${deps.embedder.modelId}
    LEFT JOIN (
      SELECT persona_id, count(*)::int AS taken FROM courtship_seats GROUP BY persona_id
    ) s ON s.persona_id = p.id
    LEFT JOIN (
      SELECT persona_a AS persona_id FROM couples WHERE cycle_id = ${cycleId}
      UNION SELECT persona_b FROM couples WHERE cycle_id = ${cycleId}
    ) done ON done.persona_id = p.id
    WHERE p.status = 'admitted'
      AND coalesce(s.taken, 0) < ${deps.maxCourtships}::int
      AND done.persona_id IS NULL
    ORDER BY p.id`)
  const rows = rowsOf<{ id: number; handle: string; heart: Heart | string; has_vector: boolean }>(
    result,
  )
  const candidates: Candidate[] = new Array(rows.length)
  for (let i = 0; i < rows.length; i++) {
    // 200,000 rows in one go would hold the event loop for tens of milliseconds.
    if (i % CANDIDATE_SLICE === CANDIDATE_SLICE - 1) await breathe()
    const row = rows[i]!
    candidates[i] = {
      id: row.id,
      handle: row.handle,
      heart: row.heart,
      prefs: typeof row.heart === 'object' ? row.heart.prefs : undefined,
      hasVector: row.has_vector,
    }
  }
  return candidates
}

const CANDIDATE_SLICE = 20_000

/** Lets the event loop answer what waits (requests, timers) before the next slice of work. */
export const breathe = () => new Promise<void>((resolve) => setImmediate(resolve))

// Read in chunks: a chunk's rows are all in memory at once (2 KB a 512-d vector).
const VECTOR_CHUNK = 20_000

/** The stored vectors of the current model for `ids` (those without one are absent). */
export const loadVectors = async (deps: VenueDeps, ids: readonly number[]) => {
  const vectors: Array<{ id: number; vector: Float32Array }> = []
  for (let start = 0; start < ids.length; start += VECTOR_CHUNK) {
    const chunk = ids.slice(start, start + VECTOR_CHUNK)
    const result = await deps.database.db.execute(sql`
      SELECT persona_id, vector, dimension FROM persona_vectors
      WHERE model_id = ${deps.embedder.modelId} AND persona_id = ANY(${pgArray(chunk)}::int[])`)
    for (const row of rowsOf<{ persona_id: number; vector: Buffer; dimension: number }>(result))
      vectors.push({ id: row.persona_id, vector: vectorFromBytes(row.vector, row.dimension) })
  }
  return vectors
}

/**
 * Whether two personas may be paired as far as history goes: pairs that
 * courted in an earlier cycle are not put together again. This cycle's own couples do not count, so a run that read
 * its candidates before another run of the cycle formed its couples proposes
 * the same pairs, and the couples' key forms each once.
 */
export const previousPairs = async (
  deps: VenueDeps,
  cycleId: string,
  ids: readonly number[],
): Promise<{
  allowed: (lowerId: number, higherId: number) => boolean
  /** The pairs that courted before, flattened (lower id, higher id, ...), for the index process. */
  courted: Float64Array
}> => {
  if (ids.length === 0) return { allowed: () => true, courted: new Float64Array(0) }
  const result = await deps.database.db.execute(sql`
    SELECT persona_a, persona_b FROM couples
    WHERE persona_a = ANY(${pgArray(ids)}::int[]) AND cycle_id <> ${cycleId}`)
  const rows = rowsOf<{ persona_a: number; persona_b: number }>(result)
  const courted = new Float64Array(rows.length * 2)
  // The pairing asks for every edge it looks at: a lookup by number, no key string per call.
  const partners = new Map<number, Set<number>>()
  rows.forEach((row, i) => {
    courted[2 * i] = row.persona_a
    courted[2 * i + 1] = row.persona_b
    const known = partners.get(row.persona_a)
    if (known) known.add(row.persona_b)
    else partners.set(row.persona_a, new Set([row.persona_b]))
  })
  return { allowed: (lowerId, higherId) => !partners.get(lowerId)?.has(higherId), courted }
}

import { rowsOf } from '@agents/service-kit/db'
import { sql } from 'drizzle-orm'
import type { VenueDeps } from '../deps.ts'
import { breathe, loadVectors } from './candidates.ts'

/** How often the holder syncs its index with the database between beats. */
export const FOLLOW_EVERY_MS = 15_000

// Vectors go to the index a slice at a time: reading and sending one slice holds this
// process's event loop a few milliseconds (2 KB a 512-d vector).
const VECTOR_SLICE = 2000

/**
 * Reads the vectors of `ids` and puts them in the index, a slice at a time.
 * More than a slice (a takeover, a restart without a snapshot) goes into the
 * graph once all are read: one build in locality order and searches in large
 * slices cost a fraction of 2,000 at a time.
 */
export const addFromDatabase = async (deps: VenueDeps, ids: readonly number[]) => {
  const later = ids.length > VECTOR_SLICE
  let read = 0
  for (let first = 0; first < ids.length; first += VECTOR_SLICE) {
    const found = await loadVectors(deps, ids.slice(first, first + VECTOR_SLICE))
    if (found.length === 0) continue
    const d = found[0]!.vector.length
    const matrix = new Float32Array(found.length * d)
    for (let row = 0; row < found.length; row++) matrix.set(found[row]!.vector, row * d)
    await deps.matchPool.add(
      found.map((entry) => entry.id),
      matrix,
      { later },
    )
    read += found.length
    await breathe()
  }
  if (later) await deps.matchPool.settle()
  return read
}

/**
 * Brings the index in line with `waiting` (the personas waiting for a
 * partner, with a vector): who no longer waits goes out, and only the
 * newcomers' vectors are read from the database and go in.
 */
export const syncIndex = async (deps: VenueDeps, waiting: readonly number[]) => {
  const { left, missing } = await deps.matchPool.sync(waiting)
  await addFromDatabase(deps, missing)
  return { read: missing.length, left }
}

/** Admitted personas with a free courtship seat and a vector of the current model: who the index holds. */
export const loadWaitingIds = async (deps: VenueDeps) =>
  rowsOf<{ id: number }>(
    await deps.database.db.execute(sql`
      SELECT p.id FROM personas p
      JOIN persona_vectors v ON v.persona_id = p.id AND v.model_id = ${deps.embedder.modelId}
      LEFT JOIN (
        SELECT persona_id, count(*)::int AS taken FROM courtship_seats GROUP BY persona_id
      ) s ON s.persona_id = p.id
      WHERE p.status = 'admitted' AND coalesce(s.taken, 0) < ${deps.maxCourtships}::int
      ORDER BY p.id`),
  ).map((row) => row.id)

/**
 * One sync of the holder's index with the database between beats. The
 * database is read outside the index's turn (at 200,000 personas a few
 * seconds a beat would otherwise wait for), and the read is applied only if
 * no turn ended since it began: a beat's pairs or a notice's newcomers make
 * it stale (it would put the paired back, or take the newcomers out); the
 * next period reads again. Answers whether it was applied.
 */
export const followOnce = async (
  deps: VenueDeps,
  { read = loadWaitingIds }: { read?: (deps: VenueDeps) => Promise<number[]> } = {},
) => {
  const index = deps.matchPool
  const seen = index.turnsDone
  const waiting = await read(deps)
  return index.exclusive(async () => {
    if (!index.holding || index.turnsDone !== seen) return false
    await syncIndex(deps, waiting)
    return true
  })
}

/**
 * Keeps the holder's index current between beats: newly stored vectors
 * (a notice from whichever replica embedded them) go in soon after, and
 * every `everyMs` a sync with the database takes out who withdrew, was
 * held or took a seat elsewhere, and puts in who came back. A beat then
 * starts from an index that is already current. Each runs in the index's
 * turn, never inside a beat's. Answers a stop function.
 */
export const followIndex = (deps: VenueDeps, { everyMs }: { everyMs: number }) => {
  const index = deps.matchPool
  const failed = (error: unknown) =>
    deps.logger.warn({ err: error }, 'keeping the match index current failed; the next beat syncs')
  index.onNotice((notice) => {
    index
      .exclusive(async () => {
        // A persona already in keeps its vector: only a notice's newcomers change anything.
        if (index.holding) await addFromDatabase(deps, notice.in)
      })
      .catch(failed)
  })
  const timer =
    everyMs > 0
      ? setInterval(() => {
          if (index.holding) followOnce(deps).catch(failed)
        }, everyMs)
      : undefined
  timer?.unref()
  return () => clearInterval(timer)
}

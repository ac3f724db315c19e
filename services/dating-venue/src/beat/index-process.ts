// The kept index's own process (a child of the replica holding the beat, see match-index.ts):
// the vectors, the HNSW graph and every pairing run live here, so building the graph,
// searching it and pairing never hold the service's event loop, and the memory they take is
// this process's, freed whole when the replica stops holding the index.
import type { Prefs } from '../heart/heart-schema.ts'
import { createMatchPool, type HnswOptions, type MatchPool } from './match-pool.ts'
import { pairCandidates } from './pairing.ts'
import type { PairingStats } from './pairing-engine.ts'
import type { PairingCandidate } from './pairing-matrix.ts'

export type IndexInit = { modelId: string; dir?: string | undefined; hnsw: HnswOptions }

/** Requests the replica sends; each is answered in order, one at a time. */
export type IndexRequest =
  | { op: 'init'; init: IndexInit }
  | { op: 'sync'; ids: Float64Array }
  | { op: 'add'; ids: Float64Array; vectors: Float32Array; later?: boolean }
  | { op: 'settle' }
  | { op: 'remove'; ids: Float64Array }
  | { op: 'erase'; ids: Float64Array }
  | { op: 'has'; persona: number }
  | { op: 'stage'; ids: Float64Array; prefs: Array<Prefs | undefined> }
  | { op: 'pair'; allowed: Float64Array; exactUpTo: number; k?: number }
  | { op: 'status' }
  | { op: 'reset' }

export type IndexStatus = {
  size: number
  loadedFrom: 'snapshot' | 'empty'
  /** This process's peak resident memory so far, bytes. */
  maxRss: number
  rss: number
  heapUsed: number
  external: number
}

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
}

/** Rows packed for a run between two collections (100 MB of 512-d vectors). */
const ADOPT_SLICE = 50_000

/** A full garbage collection (the process starts with --expose-gc). */
const collect = () => (globalThis as { gc?: () => void }).gc?.()

let pool: MatchPool | undefined
let staged: { ids: number[]; prefs: Array<Prefs | undefined> } = { ids: [], prefs: [] }

const send = (message: unknown) => process.send?.(message)

const need = () => {
  if (!pool) throw new Error('match index: not initialised')
  return pool
}

const status = (): IndexStatus => {
  const memory = process.memoryUsage()
  return {
    size: pool?.size ?? 0,
    loadedFrom: pool?.loadedFrom ?? 'empty',
    maxRss: process.resourceUsage().maxRSS * 1024,
    rss: memory.rss,
    heapUsed: memory.heapUsed,
    external: memory.external + memory.arrayBuffers,
  }
}

/**
 * Pairs the staged candidates over the pool (which the replica synced to
 * them first), then keeps who is still waiting: the paired leave, the
 * unpaired stay (or come back, if the run took them out as having no
 * partner left), and the snapshot is saved.
 */
const pair = ({
  allowed,
  exactUpTo,
  k,
}: {
  allowed: Float64Array
  exactUpTo: number
  k?: number
}) => {
  const index = need()
  const { ids, prefs } = staged
  staged = { ids: [], prefs: [] }
  const started = performance.now()
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
  const courted = new Map<number, Set<number>>()
  for (let p = 0; p < allowed.length; p += 2) {
    const known = courted.get(allowed[p]!)
    if (known) known.add(allowed[p + 1]!)
    else courted.set(allowed[p]!, new Set([allowed[p + 1]!]))
  }
  let stats: PairingStats | undefined
  const proposed =
    waiting.length < 2
      ? []
      : pairCandidates(waiting, {
          allowed: courted.size > 0 ? (a, b) => !courted.get(a)?.has(b) : undefined,
          pool: index,
          exactUpTo,
          ...(k ? { k } : {}),
          onStats: (run) => {
            stats = run
          },
        })
  const { rss, heapUsed, arrayBuffers } = process.memoryUsage()
  const paired = new Set<number>()
  for (const [a, b] of proposed) paired.add(a).add(b)
  index.remove(paired)
  index.add(waiting.filter((c) => !paired.has(c.id) && !index.has(c.id)))
  // Who still waits views the run's matrix: their own copies let it go.
  index.detach()
  collect()
  const pairMs = performance.now() - started
  index.save()
  const pairs = new Float64Array(proposed.length * 2)
  proposed.forEach(([a, b], i) => {
    pairs[2 * i] = a
    pairs[2 * i + 1] = b
  })
  return {
    pairs,
    stats,
    waiting: index.size,
    pairMs,
    saveMs: performance.now() - started - pairMs,
    memory: { rss, heapUsed, arrayBuffers },
  } satisfies PairAnswer
}

/**
 * Runs both kinds of pairing once on random personas at start, so `init`
 * answers with the code compiled and the first beat is not the one that
 * pays for it (about a second, once per process).
 */
const warmUp = () => {
  let state = 0x2545f491
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) >>> 0
    return state / 2 ** 32 - 0.5
  }
  const personas = Array.from({ length: 3000 }, (_, i) => {
    const vector = Float32Array.from({ length: 32 }, random)
    const norm = Math.hypot(...vector)
    return { id: i + 1, vector: vector.map((v) => v / norm) }
  })
  pairCandidates(personas.slice(0, 600), { exactUpTo: 600 })
  pairCandidates(personas, { exactUpTo: 0 })
}

const handle = (request: IndexRequest): unknown => {
  switch (request.op) {
    case 'init':
      if (!pool) warmUp()
      pool ??= createMatchPool({
        modelId: request.init.modelId,
        dir: request.init.dir,
        ...request.init.hnsw,
        onWarning: (message, error) =>
          send({ warning: message, error: error instanceof Error ? error.message : error }),
      })
      return status()
    case 'sync': {
      const { stale, missing } = need().diff(Array.from(request.ids))
      need().remove(stale)
      return { left: stale.length, missing: Float64Array.from(missing) }
    }
    case 'add': {
      const index = need()
      const d = request.ids.length === 0 ? 0 : request.vectors.length / request.ids.length
      // Views of the message's one matrix, not 2,000 small copies: it is freed when the last
      // of them leaves (the next pairing packs them anew).
      const entries = Array.from(request.ids, (id, i) => ({
        id,
        vector: request.vectors.subarray(i * d, (i + 1) * d),
      }))
      index.add(entries, { later: request.later ?? false })
      return index.size
    }
    case 'settle':
      need().settle()
      return need().size
    case 'remove':
      return need().remove(request.ids)
    case 'erase':
      for (const id of request.ids) need().erase(id)
      return need().size
    case 'has':
      return need().has(request.persona)
    case 'stage':
      for (let i = 0; i < request.ids.length; i++) {
        staged.ids.push(request.ids[i]!)
        staged.prefs.push(request.prefs[i])
      }
      return staged.ids.length
    case 'pair':
      return pair(request)
    case 'status':
      return status()
    case 'reset':
      need().reset()
      return 0
  }
}

process.on('message', (message: { id: number } & IndexRequest) => {
  try {
    send({ id: message.id, ok: true, value: handle(message) })
  } catch (error) {
    send({
      id: message.id,
      ok: false,
      error: error instanceof Error ? error.message : String(error),
    })
  }
})
// The replica gone (its IPC channel closed) means nobody holds this index any more.
process.on('disconnect', () => process.exit(0))
send({ ready: true })

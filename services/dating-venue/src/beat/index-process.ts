// The kept index's own process (a child of the replica holding the beat, see match-index.ts):
// the vectors, the HNSW graph and every pairing run live here, so building the graph,
// searching it and pairing never hold the service's event loop, and the memory they take is
// this process's, freed whole when the replica stops holding the index.
import type { Prefs } from '../heart/heart-schema.ts'
import {
  type PairAnswer,
  type PairStep,
  pairStagedRun,
  type StagedCandidates,
} from './index-pairing.ts'
import { createMatchPool, type HnswOptions, type MatchPool } from './match-pool.ts'
import { pairCandidates } from './pairing.ts'

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
  | { op: 'pair-next' }
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

let pool: MatchPool | undefined
let staged: StagedCandidates = { ids: [], prefs: [] }
/** A pairing run between its first pairs and its answer (see `pairStagedRun`). */
let running: Generator<Float64Array, PairAnswer> | undefined
/** Requests that came while a run waited to go on: answered after it, in order. */
const held: Array<{ id: number } & IndexRequest> = []

/** The run's next step; the run is over once it answers. */
const step = (): PairStep => {
  if (!running) throw new Error('match index: no pairing run to go on with')
  try {
    const next = running.next()
    if (!next.done) return { done: false, settled: next.value }
    running = undefined
    return { done: true, answer: next.value }
  } catch (error) {
    running = undefined
    throw error
  }
}

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
    case 'pair': {
      const run = staged
      staged = { ids: [], prefs: [] }
      running = pairStagedRun(need(), run, request)
      return step()
    }
    case 'pair-next':
      return step()
    case 'status':
      return status()
    case 'reset':
      need().reset()
      return 0
  }
}

const answer = (message: { id: number } & IndexRequest) => {
  try {
    send({ id: message.id, ok: true, value: handle(message) })
  } catch (error) {
    send({
      id: message.id,
      ok: false,
      error: error instanceof Error ? error.message : String(error),
    })
  }
}

process.on('message', (message: { id: number } & IndexRequest) => {
  // While a run waits for the beat to ask for the rest, nothing else changes the pool under
  // it (an erasure, a newcomer): those wait for its answer.
  if (running && message.op !== 'pair-next') {
    held.push(message)
    return
  }
  answer(message)
  while (!running && held.length > 0) answer(held.shift()!)
})
// The replica gone (its IPC channel closed) means nobody holds this index any more.
process.on('disconnect', () => process.exit(0))
send({ ready: true })

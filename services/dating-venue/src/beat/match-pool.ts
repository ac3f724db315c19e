import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Index, MetricKind, ScalarKind } from 'usearch'
import { collect } from './collect.ts'
import { localityOrder } from './locality-order.ts'
import { EXACT_UP_TO } from './pairing-defaults.ts'

/**
 * HNSW settings. Defaults measured on 50,000 × 512-d clustered personas
 * (bench/dating-venue), 2 shared cores, share of exact pairs reproduced
 * and pairing time (2026-11-27, every core, arrival order): these 98.55 %, 15.0 s;
 * expansionSearch 96: 97.03 %; expansionAdd 32: 92.24 %; connectivity 12:
 * 96.44 %; f32 instead of f16: 98.61 % in 24.6 s. Greedy mutual pairing
 * amplifies misses (each changes a chain of pairs), so the graph must find
 * nearly every true neighbour.
 */
export type HnswOptions = {
  quantization?: ScalarKind
  connectivity?: number
  expansionAdd?: number
  expansionSearch?: number
  /** A re-query over at most this many remaining rows runs exact: cheaper than the graph there, and exact. */
  exactRemainder?: number
  /**
   * ... or over at most this many times k: a graph search for k costs about
   * max(k, expansionSearch) steps. Measured at 50,000 × 512-d, 2 shared
   * cores: 5,258 rows left, 1,134 queries, k 272: HNSW 5.9 s, exact 0.5 s;
   * 18,572 left, 8,763 queries, k 68: HNSW 4.5 s, exact ~15 s.
   */
  exactPerK?: number
  /**
   * Native threads building and searching the graph, 0 for every core.
   * Parallel insertion races, so two builds of the same personas can differ
   * in a few edges, and the approximate pairs in a few pairs.
   */
  threads?: number
  /**
   * The share of a build inserted in locality order, after the rest in
   * arrival order (0: all in arrival order). Locality order builds faster (a
   * run of similar vectors stays in cache) but a graph built only that way
   * links distant regions poorly. Measured (2 shared cores, exact pairs
   * reproduced at 50,000 / pairing time): 0: 98.67 %, 17.1 s; 0.5: 98.76 %,
   * 14.1 s; 0.8: 98.44 %, 11.1 s; 0.9: 98.23 %, 10.9 s; 1: 95.46 %, 13.4 s.
   * At 200,000 pairing took 140 s with 0 and 102 s with 0.8. The bench's own
   * run of 0.8 reproduced only 98.04 % (parallel builds vary): 0.5 keeps a margin.
   */
  localInsert?: number
  /**
   * Up to this many candidates a beat pairs by exact search and does not
   * search the graph (exact is faster there, and the reference): see
   * `pairCandidates`. The pool is kept either way.
   */
  exactUpTo?: number
  /**
   * Neighbours kept per persona between beats (0: none). Once the graph
   * exists, a persona that comes in is searched for its nearest at once and
   * offered to theirs, so a beat starts from every persona's list and does
   * not search the graph for all of them again (at 200,000 personas that
   * search was the larger half of a warm beat).
   */
  keptNeighbours?: number
}

export const HNSW_DEFAULTS = {
  quantization: ScalarKind.F16,
  connectivity: 16,
  expansionAdd: 64,
  expansionSearch: 128,
  exactRemainder: 4096,
  exactPerK: 48,
  threads: 0,
  localInsert: 0.5,
  exactUpTo: EXACT_UP_TO,
  keptNeighbours: 48,
} satisfies Required<HnswOptions>

/** A pool that holds more removed nodes than live ones is rebuilt: a search walks through the removed. */
const SPARSE_RATIO = 1

/** Rows a build hands the graph at once. */
const INSERT_SLICE = 16_384

/**
 * Queries a search hands the graph at once: its copy of them in locality
 * order is then 32 MB at 512-d, not a second copy of every vector (400 MB at
 * 200,000).
 */
const SEARCH_SLICE = 16_384

/** Up to this many personas (under a second to build), erasing one rebuilds the graph at once. */
const ERASE_REBUILD_UP_TO = 10_000

const SNAPSHOT_VERSION = 4

/** The snapshot's files in its folder: the manifest, the vectors, the graph, the kept lists. */
export const SNAPSHOT_FILES = [
  'match-pool.json',
  'match-pool.vectors',
  'match-pool.usearch',
  'match-pool.lists',
] as const

type Manifest = {
  version: number
  modelId: string
  dimensions: number
  count: number
  /** Whether the graph was built (and saved beside the vectors). */
  graph: boolean
  /** Neighbours per kept list saved beside them (0: none saved). */
  keptNeighbours: number
}

/**
 * The kept lists' file: per persona, in the vectors file's order, its
 * count and floor, then its K ids (32-bit) and K scores. Bytes for `count` personas.
 */
const listsBytes = (count: number, k: number) => count * (4 + 4 + 8 * k)

/** Kept lists hold ids in 32 bits (persona ids are PostgreSQL `serial`s): 38 MB less at 200,000. */
const MAX_ID = 2 ** 31 - 1

/**
 * The matchmaker's kept index: every persona waiting for a partner (admitted,
 * a courtship seat free, a vector of the current model), with its vector, and
 * an HNSW graph of them that lives between beats (built the first time a beat
 * searches it, i.e. once the venue is past `exactUpTo`). A beat brings it in line with the
 * database (`sync`: newcomers in, personas no longer waiting out), pairs
 * over it, and takes the paired out; only what changed is inserted or
 * removed. With `dir` the pool is saved after each beat and loaded at start,
 * so a restart does not rebuild it; a snapshot that does not match (another
 * model, another dimension, a damaged file) is dropped and the pool refills
 * from the stored vectors. Erasing a persona takes its vector out of memory
 * and drops the snapshot on disk at once.
 */
export type MatchPool = {
  readonly modelId: string
  /** Personas in the pool. */
  readonly size: number
  has(id: number): boolean
  /** The persona's vector (L2-normalised f32), while it is in the pool. */
  vectorOf(id: number): Float32Array | undefined
  /**
   * Puts personas in (a persona already in keeps its vector). `later`: their
   * vectors only, the graph and lists at the next `build` or search: a
   * takeover's 200,000 personas go into the graph in one locality-ordered
   * build and searched in large slices, not 2,000 at a time.
   */
  add(
    entries: ReadonlyArray<{ id: number; vector: Float32Array }>,
    options?: { later?: boolean },
  ): void
  /** Takes personas out; answers how many were in. */
  remove(ids: Iterable<number>): number
  /**
   * Keeps the pool's vectors as views into a pairing run's packed matrix
   * (the same values): the run's copy is then the only one, not a second.
   */
  adopt(ids: Float64Array, matrix: Float32Array): void
  /** Copies out the vectors still viewing a run's matrix, so the matrix can be freed. */
  detach(): void
  /** The ids in the pool that are not in `wanted`, and the ids of `wanted` not in the pool. */
  diff(wanted: readonly number[]): { stale: number[]; missing: number[] }
  /**
   * The k nearest pool members of each query vector (row-major), best
   * first, by the graph's estimate (1 − cosine distance). Queries are
   * answered in locality order for the cache; answers come back in query order.
   */
  search(
    queries: Float32Array,
    k: number,
  ): { keys: Float64Array; scores: Float32Array; counts: Int32Array; width: number }
  /**
   * The persona's kept neighbours (see `keptNeighbours`), best first, by
   * the graph's estimate: ids that left since may still be listed. `floor`
   * is the best score a persona not listed can have (by the graph's
   * ranking): the last the list's search found, raised to any neighbour
   * pushed out since. A view of the pool's arrays: the next change rewrites it.
   * Undefined while the persona has no list (no graph yet, or it just came
   * back in).
   */
  neighbours(id: number): { ids: Int32Array; scores: Float32Array; floor: number } | undefined
  /** Builds the graph and the kept lists now, if they are not built. */
  build(): void
  /**
   * Puts personas added `later` into the graph and lists, as `add` would
   * have (past `exactUpTo`, or once the graph exists).
   */
  settle(): void
  /**
   * Rebuilds the graph now if it still holds an erased persona's bytes (a
   * graph left mostly removed was already let go of in `remove`, and is
   * rebuilt by the next search).
   */
  compact(): void
  /** Erasure: the persona's vector leaves memory and the snapshot leaves disk now. */
  erase(id: number): void
  /** Writes the snapshot (when `dir` is set). */
  save(): void
  /** Forgets everything (the pool refills from the stored vectors at the next beat). */
  reset(): void
  readonly options: Required<HnswOptions>
  /**
   * Runs `work` after every earlier call's work has settled: a beat syncs,
   * pairs and settles the pool as one turn, even when two runs of a beat
   * meet in one process (a test past the replica lock).
   */
  exclusive<T>(work: () => Promise<T>): Promise<T>
  /** Where the pool came from at start: a snapshot, or empty. */
  readonly loadedFrom: 'snapshot' | 'empty'
}

export type CreateMatchPoolParameters = HnswOptions & {
  modelId: string
  /** Where the snapshot lives; none: the pool is rebuilt after a restart. */
  dir?: string | undefined
  onWarning?: (message: string, error?: unknown) => void
}

/** A file's bytes where 8-byte views can start (a large read is its own buffer: no copy). */
const aligned = (bytes: Buffer) =>
  bytes.byteOffset % 8 === 0
    ? { buffer: bytes.buffer, byteOffset: bytes.byteOffset }
    : { buffer: new Uint8Array(bytes).buffer, byteOffset: 0 }

const keyArray = (ids: readonly number[]) => {
  const keys = new BigUint64Array(ids.length)
  for (let i = 0; i < ids.length; i++) keys[i] = BigInt(ids[i]!)
  return keys
}

export const createMatchPool = ({
  modelId,
  dir,
  onWarning,
  ...hnsw
}: CreateMatchPoolParameters): MatchPool => {
  const options: Required<HnswOptions> = { ...HNSW_DEFAULTS, ...hnsw }
  const vectors = new Map<number, Float32Array>()
  let dimensions = 0
  let index: Index | undefined
  // The graph was dropped for a rebuild (`dropGraph`): built, as far as anyone asks, but not yet again.
  let rebuildDue = false
  let removed = 0
  let erased = false

  // Kept neighbour lists, a slot per persona in flat arrays: 200,000 pairs of small typed
  // arrays would cost about 100 MB in object headers alone.
  const K = options.keptNeighbours
  const slotOf = new Map<number, number>()
  const freeSlots: number[] = []
  let slots = 0
  let listIds = new Int32Array(0)
  let listScores = new Float32Array(0)
  let listCounts = new Uint16Array(0)
  let listFloors = new Float32Array(0)

  const slotFor = (id: number) => {
    let slot = slotOf.get(id)
    if (slot === undefined) {
      slot = freeSlots.pop() ?? slots++
      if (slot >= listCounts.length) {
        const capacity = Math.max(1024, 2 * listCounts.length)
        const grow = <T extends Int32Array | Float32Array | Uint16Array>(
          old: T,
          make: (n: number) => T,
          width: number,
        ) => {
          const next = make(capacity * width)
          next.set(old as never)
          return next
        }
        listIds = grow(listIds, (n) => new Int32Array(n), K)
        listScores = grow(listScores, (n) => new Float32Array(n), K)
        listCounts = grow(listCounts, (n) => new Uint16Array(n), 1)
        listFloors = grow(listFloors, (n) => new Float32Array(n), 1)
      }
      slotOf.set(id, slot)
    }
    listCounts[slot] = 0
    return slot
  }

  const dropList = (id: number) => {
    const slot = slotOf.get(id)
    if (slot === undefined) return
    slotOf.delete(id)
    freeSlots.push(slot)
  }

  /** Puts `id` into the list in `slot` by score (best first), once, keeping the best K. */
  const offer = (slot: number, id: number, score: number) => {
    const base = slot * K
    const count = listCounts[slot]!
    for (let i = 0; i < count; i++) if (listIds[base + i] === id) return
    if (count === K && !(score > listScores[base + K - 1]!)) return
    // The entry pushed out is no longer listed: the floor (the best a row not listed can
    // score) rises to it.
    if (count === K) listFloors[slot] = Math.max(listFloors[slot]!, listScores[base + K - 1]!)
    let at = count < K ? count : K - 1
    for (; at > 0 && listScores[base + at - 1]! < score; at--) {
      listIds[base + at] = listIds[base + at - 1]!
      listScores[base + at] = listScores[base + at - 1]!
    }
    listIds[base + at] = id
    listScores[base + at] = score
    if (count < K) listCounts[slot] = count + 1
  }

  /**
   * Searches the graph for each of `ids` (already in it) and keeps what it
   * finds as their lists; each found neighbour is offered the newcomer in
   * turn, so older lists learn of closer personas as they arrive.
   */
  const keepLists = (ids: readonly number[]) => {
    if (K === 0 || !index || ids.length === 0) return
    for (let from = 0; from < ids.length; from += SEARCH_SLICE) {
      const slice = ids.slice(from, from + SEARCH_SLICE)
      const queries = new Float32Array(slice.length * dimensions)
      for (let q = 0; q < slice.length; q++) queries.set(vectors.get(slice[q]!)!, q * dimensions)
      const found = searchGraph(queries, K + 1)
      for (let q = 0; q < slice.length; q++) {
        const id = slice[q]!
        const slot = slotFor(id)
        let last = Number.POSITIVE_INFINITY
        for (let r = 0; r < found.counts[q]!; r++) {
          const other = found.keys[q * found.width + r]!
          const score = found.scores[q * found.width + r]!
          if (other === id) continue
          offer(slot, other, score)
          last = score
          const theirs = slotOf.get(other)
          if (theirs !== undefined) offer(theirs, id, score)
        }
        // Not full: the graph found fewer than K others, which bounds nothing.
        listFloors[slot] = listCounts[slot] === K ? last : Number.POSITIVE_INFINITY
      }
    }
  }

  /**
   * The k nearest graph members of each query (see `search`), a slice of
   * queries at a time in locality order.
   */
  const searchGraph = (queries: Float32Array, k: number) => {
    const count = dimensions === 0 ? 0 : queries.length / dimensions
    const width = Math.max(1, k)
    const keys = new Float64Array(count * width)
    const scores = new Float32Array(count * width)
    const counts = new Int32Array(count)
    if (count === 0 || vectors.size === 0) return { keys, scores, counts, width }
    const order = localityOrder(queries, dimensions, options.threads)
    const built = graph()
    for (let first = 0; first < count; first += SEARCH_SLICE) {
      const last = Math.min(count, first + SEARCH_SLICE)
      const sorted = new Float32Array((last - first) * dimensions)
      for (let i = first; i < last; i++)
        sorted.set(
          queries.subarray(order[i]! * dimensions, (order[i]! + 1) * dimensions),
          (i - first) * dimensions,
        )
      // The typings promise `Matches` for a flat array; several queries in it give `BatchMatches`.
      const found = built.search(sorted, width, options.threads) as unknown as {
        keys: BigUint64Array
        distances: Float32Array
        counts?: BigUint64Array
      }
      const stride = last - first === 1 ? found.keys.length : width
      for (let i = first; i < last; i++) {
        const q = order[i]!
        const at = (i - first) * stride
        const n = found.counts ? Number(found.counts[i - first]!) : found.keys.length
        counts[q] = n
        for (let r = 0; r < n; r++) {
          keys[q * width + r] = Number(found.keys[at + r]!)
          scores[q * width + r] = 1 - found.distances[at + r]!
        }
      }
    }
    return { keys, scores, counts, width }
  }

  const newIndex = () =>
    new Index({
      dimensions,
      metric: MetricKind.Cos,
      quantization: options.quantization,
      connectivity: options.connectivity,
      expansion_add: options.expansionAdd,
      expansion_search: options.expansionSearch,
      multi: false,
    })

  /**
   * The order a build inserts `ids` in (see `localInsert`): the first part
   * as they came, the rest grouped by similarity, from a copy of the rest's
   * vectors only.
   */
  const insertOrder = (ids: readonly number[]) => {
    const order = Int32Array.from({ length: ids.length }, (_, i) => i)
    const first = Math.floor((1 - options.localInsert) * ids.length)
    if (first >= ids.length) return order
    const matrix = new Float32Array((ids.length - first) * dimensions)
    for (let i = first; i < ids.length; i++)
      matrix.set(vectors.get(ids[i]!)!, (i - first) * dimensions)
    const rest = localityOrder(matrix, dimensions, options.threads)
    for (let i = 0; i < rest.length; i++) order[first + i] = first + rest[i]!
    return order
  }

  /**
   * Inserts into the graph (see `localInsert` for the order), a slice at a
   * time: a copy of every vector in insertion order would be another 400 MB
   * at 200,000 personas.
   */
  const insert = (ids: readonly number[]) => {
    if (ids.length === 0) return
    index ??= newIndex()
    const order = insertOrder(ids)
    for (let from = 0; from < ids.length; from += INSERT_SLICE) {
      const to = Math.min(ids.length, from + INSERT_SLICE)
      const keys = new BigUint64Array(to - from)
      const slice = new Float32Array((to - from) * dimensions)
      for (let i = from; i < to; i++) {
        const id = ids[order[i]!]!
        keys[i - from] = BigInt(id)
        slice.set(vectors.get(id)!, (i - from) * dimensions)
      }
      index.add(keys, slice, options.threads)
    }
  }

  // The graph is built the first time a search needs it (a venue past `exactUpTo`), then kept
  // and changed in place; below that the pool is only the vectors, and a small beat pays no
  // insertions.
  // Added `later`: in the vectors, not yet in the graph or the lists.
  let deferred: number[] = []
  /**
   * Lets the graph go ahead of a rebuild. Its memory (native, 240 MB at
   * 200,000) is freed once its wrapper is collected and then only at the
   * next turn of the event loop (Node runs native finalizers from
   * setImmediate): a graph dropped in the same synchronous call as the
   * rebuild stays resident beside the new one.
   */
  const dropGraph = () => {
    if (!index) return
    index = undefined
    rebuildDue = true
    collect()
  }
  const rebuild = () => {
    // Every vector goes in, the deferred with them.
    deferred = []
    dropGraph()
    rebuildDue = false
    removed = 0
    erased = false
    const ids = [...vectors.keys()]
    insert(ids)
    // A rebuild after removals keeps the lists it has (the same vectors); the first build makes them.
    keepLists(ids.filter((id) => !slotOf.has(id)))
  }
  const graph = () => {
    if (!index) rebuild()
    else if (deferred.length > 0) {
      const ids = deferred.filter((id) => vectors.has(id) && !slotOf.has(id))
      deferred = []
      insert(ids)
      keepLists(ids)
    }
    return index!
  }

  const snapshotPaths = dir
    ? {
        manifest: join(dir, SNAPSHOT_FILES[0]),
        vectors: join(dir, SNAPSHOT_FILES[1]),
        index: join(dir, SNAPSHOT_FILES[2]),
        lists: join(dir, SNAPSHOT_FILES[3]),
      }
    : undefined

  const dropSnapshot = () => {
    if (!snapshotPaths) return
    for (const path of Object.values(snapshotPaths)) rmSync(path, { force: true })
  }

  const loadLists = (ids: Float64Array) => {
    const bytes = readFileSync(snapshotPaths!.lists)
    if (bytes.byteLength !== listsBytes(ids.length, K))
      throw new Error('lists file does not match the manifest')
    const { buffer, byteOffset: at } = aligned(bytes)
    const n = ids.length
    const counts = new Uint32Array(buffer, at, n)
    const floors = new Float32Array(buffer, at + 4 * n, n)
    const savedIds = new Int32Array(buffer, at + 8 * n, n * K)
    const savedScores = new Float32Array(buffer, at + 8 * n + 4 * n * K, n * K)
    for (let i = 0; i < n; i++) {
      if (counts[i]! > K) throw new Error('lists file holds a list longer than K')
      const slot = slotFor(ids[i]!)
      listCounts[slot] = counts[i]!
      listFloors[slot] = floors[i]!
      listIds.set(savedIds.subarray(i * K, i * K + counts[i]!), slot * K)
      listScores.set(savedScores.subarray(i * K, i * K + counts[i]!), slot * K)
    }
  }

  /** The kept lists of `ids` (see `listsBytes`); personas without one are saved with none. */
  const listsFile = (ids: readonly number[]) => {
    const n = ids.length
    const buffer = new ArrayBuffer(listsBytes(n, K))
    const counts = new Uint32Array(buffer, 0, n)
    const floors = new Float32Array(buffer, 4 * n, n)
    const savedIds = new Int32Array(buffer, 8 * n, n * K)
    const savedScores = new Float32Array(buffer, 8 * n + 4 * n * K, n * K)
    for (let i = 0; i < n; i++) {
      const slot = slotOf.get(ids[i]!)
      if (slot === undefined) continue
      counts[i] = listCounts[slot]!
      floors[i] = listFloors[slot]!
      savedIds.set(listIds.subarray(slot * K, slot * K + K), i * K)
      savedScores.set(listScores.subarray(slot * K, slot * K + K), i * K)
    }
    return new Uint8Array(buffer)
  }

  // A snapshot is used only whole: the manifest names the model, the vectors file holds exactly
  // `count` ids and vectors, and the graph holds exactly those ids. Anything else is dropped.
  const loadSnapshot = (): boolean => {
    if (!snapshotPaths) return false
    let manifest: Manifest
    try {
      manifest = JSON.parse(readFileSync(snapshotPaths.manifest, 'utf8')) as Manifest
    } catch {
      return false
    }
    try {
      if (manifest.version !== SNAPSHOT_VERSION || manifest.modelId !== modelId)
        throw new Error(`snapshot of model ${manifest.modelId}, version ${manifest.version}`)
      const bytes = readFileSync(snapshotPaths.vectors)
      const { count, dimensions: d } = manifest
      if (bytes.byteLength !== count * 8 + count * d * 4)
        throw new Error('vectors file does not match the manifest')
      const { buffer, byteOffset } = aligned(bytes)
      const ids = new Float64Array(buffer, byteOffset, count)
      const matrix = new Float32Array(buffer, byteOffset + count * 8, count * d)
      dimensions = d
      // Views of the file's one buffer (no copy of 400 MB at 200,000); the next pairing packs
      // them into its matrix, and the buffer goes with the last view.
      for (let i = 0; i < count; i++) vectors.set(ids[i]!, matrix.subarray(i * d, (i + 1) * d))
      if (count === 0 || !manifest.graph) return true
      index = newIndex()
      index.load(snapshotPaths.index)
      const held = index.contains(keyArray([...ids]))
      if (index.size() !== count || !(Array.isArray(held) ? held : [held]).every(Boolean))
        throw new Error('graph does not hold the manifest ids')
      // Lists saved with another K are left out: the pool searches for those personas anew.
      if (manifest.keptNeighbours === K && K > 0) loadLists(ids)
      return true
    } catch (error) {
      onWarning?.('match pool snapshot dropped; the pool refills from the stored vectors', error)
      vectors.clear()
      index = undefined
      dimensions = 0
      slotOf.clear()
      freeSlots.length = 0
      slots = 0
      dropSnapshot()
      return false
    }
  }

  const loadedFrom = loadSnapshot() ? 'snapshot' : 'empty'
  let turn: Promise<unknown> = Promise.resolve()

  const writeSnapshot = () => {
    if (!snapshotPaths || !dir) return
    mkdirSync(dir, { recursive: true })
    const ids = [...vectors.keys()]
    const buffer = new ArrayBuffer(ids.length * 8 + ids.length * dimensions * 4)
    new Float64Array(buffer, 0, ids.length).set(ids)
    const matrix = new Float32Array(buffer, ids.length * 8, ids.length * dimensions)
    for (let i = 0; i < ids.length; i++) matrix.set(vectors.get(ids[i]!)!, i * dimensions)
    // Manifest last, each file through a rename: a crash leaves the old snapshot or a mismatch, never a mix that loads.
    rmSync(snapshotPaths.manifest, { force: true })
    writeFileSync(`${snapshotPaths.vectors}.tmp`, new Uint8Array(buffer))
    renameSync(`${snapshotPaths.vectors}.tmp`, snapshotPaths.vectors)
    if (index && ids.length > 0) {
      index.save(`${snapshotPaths.index}.tmp`)
      renameSync(`${snapshotPaths.index}.tmp`, snapshotPaths.index)
    } else rmSync(snapshotPaths.index, { force: true })
    // Lists are kept only beside a graph: without one nobody has a list.
    const withLists = index !== undefined && ids.length > 0 && K > 0
    if (withLists) {
      writeFileSync(`${snapshotPaths.lists}.tmp`, listsFile(ids))
      renameSync(`${snapshotPaths.lists}.tmp`, snapshotPaths.lists)
    } else rmSync(snapshotPaths.lists, { force: true })
    const manifest: Manifest = {
      version: SNAPSHOT_VERSION,
      modelId,
      dimensions,
      count: ids.length,
      graph: index !== undefined && ids.length > 0,
      keptNeighbours: withLists ? K : 0,
    }
    writeFileSync(`${snapshotPaths.manifest}.tmp`, JSON.stringify(manifest))
    renameSync(`${snapshotPaths.manifest}.tmp`, snapshotPaths.manifest)
  }

  const pool: MatchPool = {
    modelId,
    options,
    loadedFrom,
    get size() {
      return vectors.size
    },
    has: (id) => vectors.has(id),
    exclusive(work) {
      const run = turn.then(work)
      turn = run.catch(() => {})
      return run
    },
    vectorOf: (id) => vectors.get(id),
    add(entries, { later = false } = {}) {
      const fresh: number[] = []
      for (const { id, vector } of entries) {
        if (vectors.has(id)) continue
        if (!Number.isInteger(id) || id < 0 || id > MAX_ID)
          throw new Error(`match pool: id ${id} is not a persona id (an integer up to 2^31 - 1)`)
        if (dimensions === 0) dimensions = vector.length
        if (vector.length !== dimensions)
          throw new Error(
            `match pool: vector of ${vector.length} dimensions, pool has ${dimensions}`,
          )
        vectors.set(id, vector)
        fresh.push(id)
      }
      if (later || rebuildDue) {
        for (const id of fresh) deferred.push(id)
        return
      }
      if (index) {
        insert(fresh)
        keepLists(fresh)
      } else if (K > 0 && vectors.size > options.exactUpTo) {
        // Past exact search's reach the graph is built now, as personas arrive, not by the beat
        // that first needs it: the beat then starts from a current graph and current lists.
        rebuild()
      }
    },
    adopt(ids, matrix) {
      const d = ids.length === 0 ? 0 : matrix.length / ids.length
      if (d !== dimensions) return
      for (let row = 0; row < ids.length; row++)
        if (vectors.has(ids[row]!)) vectors.set(ids[row]!, matrix.subarray(row * d, (row + 1) * d))
    },
    detach() {
      for (const [id, vector] of vectors)
        if (vector.byteLength !== vector.buffer.byteLength) vectors.set(id, vector.slice())
    },
    remove(ids) {
      const gone: number[] = []
      for (const id of ids)
        if (vectors.delete(id)) {
          gone.push(id)
          dropList(id)
        }
      if (gone.length > 0 && index) {
        removed += gone.length
        // A graph holding more removed nodes than live ones is rebuilt before it is searched
        // again: dropped now, so a caller that turns its event loop before that (a pairing run
        // yields between phases) has its memory back before the rebuild.
        if (removed > SPARSE_RATIO * vectors.size) dropGraph()
        else index.remove(keyArray(gone))
      }
      return gone.length
    },
    diff(wanted) {
      const want = new Set(wanted)
      const stale: number[] = []
      for (const id of vectors.keys()) if (!want.has(id)) stale.push(id)
      const missing = wanted.filter((id) => !vectors.has(id))
      return { stale, missing }
    },
    search: (queries, k) => searchGraph(queries, k),
    build() {
      if (vectors.size > 0) graph()
    },
    settle() {
      if (index || rebuildDue || (K > 0 && vectors.size > options.exactUpTo)) graph()
      else deferred = []
    },
    neighbours(id) {
      const slot = slotOf.get(id)
      if (slot === undefined) return undefined
      const base = slot * K
      const count = listCounts[slot]!
      return {
        ids: listIds.subarray(base, base + count),
        scores: listScores.subarray(base, base + count),
        floor: listFloors[slot]!,
      }
    },
    compact() {
      if (index && erased) rebuild()
    },
    erase(id) {
      // Its values may sit in a run's matrix that other vectors still view: zeroed, not only dropped.
      vectors.get(id)?.fill(0)
      if (pool.remove([id]) === 0) return
      // A removed node leaves searches at once, but its bytes stay in the graph until it is
      // rebuilt: a small pool is rebuilt now, a large one at the end of the next beat. The
      // snapshot on disk goes now.
      if (index) {
        erased = true
        if (vectors.size <= ERASE_REBUILD_UP_TO) rebuild()
      }
      dropSnapshot()
    },
    save() {
      // A snapshot's graph holds every persona in it.
      if (index || rebuildDue) graph()
      pool.compact()
      // A snapshot only saves a rebuild: failing to write one must not fail the beat.
      try {
        writeSnapshot()
      } catch (error) {
        onWarning?.('match pool snapshot not written; a restart rebuilds the pool', error)
        try {
          dropSnapshot()
        } catch {}
      }
    },
    reset() {
      deferred = []
      vectors.clear()
      slotOf.clear()
      freeSlots.length = 0
      slots = 0
      index = undefined
      rebuildDue = false
      removed = 0
      erased = false
      dimensions = 0
      dropSnapshot()
    },
  }
  return pool
}

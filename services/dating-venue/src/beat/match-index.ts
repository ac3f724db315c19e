import { type ChildProcess, fork } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { rmSync } from 'node:fs'
import { setPriority } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Logger } from '@agents/service-kit'
import pg from 'pg'
import type { VenueDatabase } from '../db/open.ts'
import type { Prefs } from '../heart/heart-schema.ts'
import type { PairAnswer, PairStep } from './index-pairing.ts'
import type { IndexRequest, IndexStatus } from './index-process.ts'
import { HNSW_DEFAULTS, type HnswOptions, SNAPSHOT_FILES } from './match-pool.ts'

/** One replica at a time holds the kept index (a session-level advisory lock, kept while it holds). */
export const INDEX_HOLDER_LOCK = 7_246_011

/** Where replicas tell each other what changed: `{ from, erase?: ids, in?: ids }`. */
export const INDEX_CHANNEL = 'venue_match_index'

// NOTIFY payloads are capped at 8,000 bytes: ids go in slices.
const IDS_PER_NOTICE = 500

/** How soon a lost LISTEN connection is opened again. */
const RELISTEN_MS = 1000

/** The index process's niceness by default (0 the replica's, 19 the lowest priority). */
const INDEX_NICENESS = 10

const ENTRY = fileURLToPath(new URL('./index-process.ts', import.meta.url))

/**
 * glibc's malloc in the index process: every block of 128 KB or more its
 * own mapping, given back to the system when freed. By default glibc raises
 * that threshold (up to 32 MB) each time such a block is freed, after which
 * the run's many large, short-lived arrays (search results, slices of
 * vectors) come from its heaps, which it rarely gives back. Measured at
 * 200,000 personas, a cold beat's index process: peak 1,444 MB without it,
 * 1,251 MB with it, the same time. Other C libraries ignore it; an
 * operator's own setting wins.
 */
const indexEnv = () => ({ MALLOC_MMAP_THRESHOLD_: String(128 * 1024), ...process.env })

/**
 * The index process runs TypeScript: natively where Node strips types
 * (production, Node >= 22.18), else through tsx (Node 20: tests, benches).
 */
const execArgv = () => [
  // The index process collects after it packs a run's vectors (see index-process.ts).
  '--expose-gc',
  ...((process.features as { typescript?: unknown }).typescript ? [] : ['--import', 'tsx']),
]

export type IndexNotice = { in: number[] }

/**
 * The matchmaker's kept index, seen from the replica: the vectors, the HNSW
 * graph and the pairing live in a child process (index-process.ts), started
 * when this replica first needs the index and ended when it stops holding
 * it, so a replica that does not hold the beat pays nothing for it, and a
 * cold 200,000-persona build never holds this process's event loop.
 *
 * Why a process, not a worker thread: the index's memory is then its own
 * (measured, bounded and freed whole), a native failure in the graph
 * (usearch) ends the index and not the replica, and Node 20 loads the
 * TypeScript sources in a child (tsx) but not in a worker. What it costs:
 * vectors cross a pipe, copied (measured in bench/README.md).
 *
 * Holding: on PostgreSQL one replica holds `INDEX_HOLDER_LOCK` on a pooled
 * session while it keeps the index (`hold`), which the scheduled beat takes
 * first; a replica that takes over (the holder stopped or died) starts its
 * index from the snapshot in `dir`, else from the stored vectors. On PGlite
 * the one process holds it.
 *
 * Erasure (`erase`) reaches the index wherever it is at once: in this
 * process directly, and in another replica's through NOTIFY on
 * `INDEX_CHANNEL`, which every replica listens to (each also deletes its own
 * snapshot). The beat's sync with the database before every pairing stays
 * the net for a notice that was lost.
 */
export type MatchIndex = {
  readonly modelId: string
  readonly options: Required<HnswOptions>
  /** Whether this replica holds the index (took the lease, or runs a beat now). */
  readonly holding: boolean
  /** Takes the holder's lease if no other replica has it; true when this replica holds it. */
  hold(): Promise<boolean>
  /** Gives the lease up and ends the index process (its memory goes with it). */
  release(): Promise<void>
  /** Runs `work` after every earlier call's work has settled (a beat is one turn). */
  exclusive<T>(work: () => Promise<T>): Promise<T>
  /** Turns (`exclusive`) finished so far: a read taken between two turns is stale once it moves. */
  readonly turnsDone: number
  /** Takes out who is not in `ids`; answers who is missing (their vectors must be added). */
  sync(ids: readonly number[]): Promise<{ left: number; missing: number[] }>
  /** `later`: see `MatchPool.add`; `settle` then puts them in the graph. */
  add(ids: readonly number[], vectors: Float32Array, options?: { later?: boolean }): Promise<void>
  settle(): Promise<void>
  remove(ids: readonly number[]): Promise<void>
  /** Queues candidates for the next `pair`, in arrival order. */
  stage(ids: readonly number[], prefs: ReadonlyArray<Prefs | undefined>): Promise<void>
  /**
   * Pairs the staged candidates over the index (`courted`: pairs that may
   * not pair again, flattened). `onSettled` is handed the pairs formed
   * so far (flattened) before each re-query: they are final, and the
   * answer lists them again with the rest.
   */
  pair(parameters: {
    courted: Float64Array
    exactUpTo: number
    onSettled?: (pairs: Float64Array) => void
  }): Promise<PairAnswer>
  /** Erasure, from any replica: out of the index that holds the persona, and off every snapshot. */
  erase(id: number): void
  /** Newly stored vectors, from any replica: the holder puts them in (see `followIndex`). */
  changed(notice: IndexNotice): void
  /** Called on the holder for each change notice (this replica's and others'). */
  onNotice(listener: (notice: IndexNotice) => void): void
  has(id: number): Promise<boolean>
  /** The index process's size and memory; undefined when this replica runs none. */
  status(): Promise<IndexStatus | undefined>
  /** Forgets the index (the next beat refills it from the stored vectors). */
  reset(): Promise<void>
  close(): Promise<void>
}

export type CreateMatchIndexParameters = HnswOptions & {
  modelId: string
  database: VenueDatabase
  /** The PostgreSQL URL to LISTEN on (a session: not through a transaction pooler). */
  listenUrl?: string | undefined
  /** The snapshot's folder; none: a new holder rebuilds from the stored vectors. */
  dir?: string | undefined
  /**
   * The index process's niceness (default 10): below the replica, so a request waiting for a
   * core goes first. On a machine shared with busier work than the venue's own, a niceness
   * that high can starve the beat: 0 runs it at the replica's priority.
   */
  niceness?: number | undefined
  logger: Logger
}

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void }

export const createMatchIndex = ({
  modelId,
  database,
  listenUrl,
  dir,
  niceness = INDEX_NICENESS,
  logger,
  ...hnsw
}: CreateMatchIndexParameters): MatchIndex => {
  const options: Required<HnswOptions> = { ...HNSW_DEFAULTS, ...hnsw }
  const replica = randomUUID()
  const listeners: Array<(notice: IndexNotice) => void> = []
  let child: ChildProcess | undefined
  let started: Promise<ChildProcess> | undefined
  const pending = new Map<number, Pending>()
  let nextId = 0
  let turn: Promise<unknown> = Promise.resolve()
  let closed = false
  // The lease: on PostgreSQL a session lock held by a pooled connection until `release`.
  let lease: { done: Promise<unknown>; end: () => void } | undefined
  let holding = false
  let turnsDone = 0

  const start = () => {
    started ??= new Promise<ChildProcess>((resolve, reject) => {
      const process_ = fork(ENTRY, [], {
        execArgv: execArgv(),
        env: indexEnv(),
        serialization: 'advanced',
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      })
      // Below the replica's own priority: on a machine of few cores a request waiting for the CPU
      // goes first, the beat (background work no one waits on) after.
      try {
        if (process_.pid && niceness > 0) setPriority(process_.pid, niceness)
      } catch {}
      process_.on('message', (message: Record<string, unknown>) => {
        if (message.ready) {
          child = process_
          const init = { modelId, dir, hnsw: options }
          request({ op: 'init', init }).then(() => resolve(process_), reject)
          return
        }
        if (typeof message.warning === 'string') {
          logger.warn({ err: message.error }, message.warning)
          return
        }
        const waiting = pending.get(message.id as number)
        if (!waiting) return
        pending.delete(message.id as number)
        if (message.ok) waiting.resolve(message.value)
        else waiting.reject(new Error(`match index: ${message.error as string}`))
      })
      process_.once('exit', (code, signal) => {
        if (child === process_) child = undefined
        started = undefined
        const error = new Error(`match index process ended (${signal ?? code})`)
        for (const waiting of pending.values()) waiting.reject(error)
        pending.clear()
        reject(error)
        if (!closed && code !== 0 && signal !== 'SIGTERM')
          logger.error({ code, signal }, 'match index process ended; the next beat rebuilds it')
      })
      process_.once('error', reject)
    })
    return started
  }

  const request = (message: IndexRequest): Promise<unknown> =>
    new Promise((resolve, reject) => {
      if (!child) return reject(new Error('match index process not running'))
      const id = nextId++
      pending.set(id, { resolve, reject })
      child.send({ id, ...message }, (error) => {
        if (!error) return
        pending.delete(id)
        reject(error)
      })
    })

  /** Starts the index process if needed, then asks it. */
  const ask = async <T>(message: IndexRequest) => {
    await start()
    return (await request(message)) as T
  }

  const stop = async () => {
    const running = started
    started = undefined
    if (!running) return
    const process_ = await running.catch(() => undefined)
    if (!process_ || process_.exitCode !== null) return
    const exited = new Promise((resolve) => process_.once('exit', resolve))
    process_.kill('SIGTERM')
    await exited
  }

  const dropSnapshot = () => {
    if (!dir) return
    for (const file of SNAPSHOT_FILES) rmSync(join(dir, file), { force: true })
  }

  const publish = (notice: { erase?: number[]; in?: number[] }) => {
    if (database.kind !== 'postgres') return
    const ids = notice.erase ?? notice.in ?? []
    const kind = notice.erase ? 'erase' : 'in'
    for (let first = 0; first < ids.length; first += IDS_PER_NOTICE) {
      const payload = JSON.stringify({
        from: replica,
        [kind]: ids.slice(first, first + IDS_PER_NOTICE),
      })
      database.client
        .query('SELECT pg_notify($1, $2)', [INDEX_CHANNEL, payload])
        .catch((error: unknown) =>
          logger.warn({ err: error }, 'match index notice not sent; the next beat syncs'),
        )
    }
  }

  const eraseHere = (ids: number[]) => {
    dropSnapshot()
    if (!child) return
    request({ op: 'erase', ids: Float64Array.from(ids) }).catch((error: unknown) =>
      logger.warn({ err: error }, 'match index erase failed; the next beat syncs'),
    )
  }

  const tell = (notice: IndexNotice) => {
    if (!holding) return
    for (const listener of listeners) listener(notice)
  }

  // Every replica listens on PostgreSQL: the holder for erasures and new vectors, the others
  // for erasures (their snapshots on disk).
  let listener: pg.Client | undefined
  let relisten: NodeJS.Timeout | undefined
  const listen = () => {
    if (closed || !listenUrl || database.kind !== 'postgres') return
    const client = new pg.Client({ connectionString: listenUrl })
    listener = client
    const again = () => {
      if (listener !== client) return
      listener = undefined
      client.end().catch(() => {})
      if (closed) return
      relisten = setTimeout(listen, RELISTEN_MS)
      relisten.unref()
    }
    client.on('error', again)
    client.on('end', again)
    client.on('notification', ({ channel, payload }) => {
      if (channel !== INDEX_CHANNEL || !payload) return
      let notice: { from?: string; erase?: number[]; in?: number[] }
      try {
        notice = JSON.parse(payload)
      } catch {
        return
      }
      if (notice.from === replica) return
      if (Array.isArray(notice.erase)) eraseHere(notice.erase.filter(Number.isInteger))
      if (Array.isArray(notice.in)) tell({ in: notice.in.filter(Number.isInteger) })
    })
    client
      .connect()
      .then(() => client.query(`LISTEN ${INDEX_CHANNEL}`))
      .catch(again)
  }
  listen()

  return {
    modelId,
    options,
    get holding() {
      return holding
    },
    async hold() {
      if (holding) return true
      if (closed) return false
      if (database.kind !== 'postgres') {
        holding = true
        await start()
        return true
      }
      let end!: () => void
      const released = new Promise<void>((resolve) => {
        end = resolve
      })
      let acquired!: (value: boolean) => void
      const got = new Promise<boolean>((resolve) => {
        acquired = resolve
      })
      const done = database
        .withLock(INDEX_HOLDER_LOCK, async () => {
          acquired(true)
          await released
        })
        .then(
          (result) => {
            if (!result.ran) acquired(false)
          },
          (error: unknown) => {
            acquired(false)
            logger.warn({ err: error }, 'match index lease lost')
          },
        )
        .finally(() => {
          if (lease?.done !== done) return
          lease = undefined
          holding = false
          void stop()
        })
      lease = { done, end }
      holding = await got
      if (!holding) lease = undefined
      // The holder needs its index process (notices, the next beat): start it now.
      else await start()
      return holding
    },
    async release() {
      const held = lease
      lease = undefined
      holding = database.kind !== 'postgres' && !closed ? holding : false
      held?.end()
      await held?.done
      await stop()
    },
    exclusive(work) {
      const run = turn.then(work).finally(() => {
        turnsDone++
      })
      turn = run.catch(() => {})
      return run
    },
    get turnsDone() {
      return turnsDone
    },
    async sync(ids) {
      const answer = await ask<{ left: number; missing: Float64Array }>({
        op: 'sync',
        ids: Float64Array.from(ids),
      })
      return { left: answer.left, missing: Array.from(answer.missing) }
    },
    async add(ids, vectors, { later = false } = {}) {
      if (ids.length === 0) return
      await ask({ op: 'add', ids: Float64Array.from(ids), vectors, later })
    },
    async settle() {
      await ask({ op: 'settle' })
    },
    async remove(ids) {
      if (ids.length === 0) return
      await ask({ op: 'remove', ids: Float64Array.from(ids) })
    },
    async stage(ids, prefs) {
      await ask({ op: 'stage', ids: Float64Array.from(ids), prefs: [...prefs] })
    },
    async pair({ courted, exactUpTo, onSettled }) {
      let step = await ask<PairStep>({ op: 'pair', allowed: courted, exactUpTo })
      while (!step.done) {
        onSettled?.(step.settled)
        step = await ask<PairStep>({ op: 'pair-next' })
      }
      return step.answer
    },
    erase(id) {
      eraseHere([id])
      publish({ erase: [id] })
    },
    changed(notice) {
      if (notice.in.length === 0) return
      tell(notice)
      publish({ in: notice.in })
    },
    onNotice(listen_) {
      listeners.push(listen_)
    },
    has: async (id) => (child ? ask<boolean>({ op: 'has', persona: id }) : false),
    status: async () => (child ? ask<IndexStatus>({ op: 'status' }) : undefined),
    async reset() {
      if (child) await ask({ op: 'reset' })
      else dropSnapshot()
    },
    async close() {
      closed = true
      clearTimeout(relisten)
      const client = listener
      listener = undefined
      await client?.end().catch(() => {})
      const held = lease
      lease = undefined
      holding = false
      held?.end()
      await held?.done
      await stop()
    },
  }
}

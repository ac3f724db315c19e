// Dating-venue beat benchmark: whole match beats (load candidates from
// PostgreSQL, sync the kept index, hard filters, reciprocal pairing in the
// index process, intros through the safety check, couples + seats + opening
// turns + notifications written in one statement) over N admitted synthetic
// personas. Per size: a cold beat (N seeded personas, an empty index: what a
// replica taking the beat over does), then a warm one (N more personas
// arrive, announced as the venue's embedder announces them, and the index
// follows them in the background: the bench waits until it is current), then
// a second beat after a few hundred newcomers. The warm beat is set beside the
// exact top-10 neighbour search alone over the same vectors (usearch
// `exactSearch`, every persona a query), measured before and after in the
// same run; above 50,000 personas it runs BENCH_BASELINE_QUERIES queries and
// is scaled up (an exact query costs the same whichever it is).
// While the cold and the warm beat run, the bench asks the same venue for
// /health and /api/floor in a loop and records this process's event-loop
// delay: the beat's graph and pairing run in the index process, and these say
// whether the replica kept answering. Peak memory is given for the index
// process (vectors, graph, kept lists, pairing) and for this process (the
// venue's requests and writes, and the bench's own copies of the vectors).
//
//   npx tsx bench/dating-venue/beat-bench.ts
//
// BENCH_SIZES (default 1000,10000,50000,200000), BENCH_NEWCOMERS (300),
// BENCH_BASELINE_QUERIES (5000), BENCH_DATABASE_URL (else
// TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test).
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { benchConfig, skipWithoutPostgres } from '@agents/bench-config'
import {
  beatOnce,
  type Heart,
  personas as personaTable,
  personaVectors,
  startFakeEmbeddings,
} from '@agents/dating-venue/bench'
import { vectorToBytes } from '@agents/dating-venue/embeddings'
import { startTestVenue } from '@agents/dating-venue/testing'
import { seededRandom } from '@agents/service-kit'
import { createTestDatabase } from '@agents/service-kit/db'
import { exactSearch, MetricKind } from 'usearch'

const { sizes, newcomers, baselineQueries } = benchConfig.venue.beat
const serverUrl = benchConfig.venue.beat.databaseUrl
if (!serverUrl) {
  skipWithoutPostgres('the beat benchmark')
  process.exit(0)
}
const DIMENSIONS = 512
const CLUSTERS = 50

const VALUES = [
  'honesty',
  'kindness',
  'curiosity',
  'humour',
  'loyalty',
  'ambition',
  'calm',
  'adventure',
]
const INTERESTS = [
  'hiking',
  'jazz',
  'cooking',
  'chess',
  'cycling',
  'films',
  'poetry',
  'sailing',
  'yoga',
  'gaming',
]

/**
 * Admitted personas with hearts (short prose, values, interests, sparse
 * prefs) and clustered unit vectors, made as they are seeded: this process
 * is also the venue's replica, and 400,000 hearts and vectors held here for
 * the whole run would cost the replica's collector what a venue never pays.
 * Each call continues the same seeded stream.
 */
const personaStream = (seed: number, handlePrefix = 'bench') => {
  const random = seededRandom(seed)
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
  const pick = <item>(items: readonly item[]) => items[Math.floor(random() * items.length)]!
  const some = (items: readonly string[], n: number) =>
    Array.from(new Set(Array.from({ length: n }, () => pick(items))))
  const centres = Array.from({ length: CLUSTERS }, () =>
    Float32Array.from({ length: DIMENSIONS }, gaussian),
  )
  let made = 0
  return (count: number) =>
    Array.from({ length: count }, () => {
      const i = made++
      const centre = pick(centres)
      const vector = Float32Array.from(centre, (c) => c + gaussian())
      const norm = Math.hypot(...vector)
      for (let k = 0; k < DIMENSIONS; k++) vector[k]! /= norm
      const age = 18 + Math.floor(random() * 50)
      const prefs: Heart['prefs'] =
        random() < 0.55
          ? undefined
          : {
              self: {
                gender: pick(['woman', 'man', 'non-binary']),
                ...(random() < 0.7 ? { age } : {}),
              },
              ...(random() < 0.6
                ? {
                    seek: {
                      genders: [pick(['woman', 'man', 'non-binary'])],
                      ...(random() < 0.4
                        ? { ageMin: Math.max(18, age - 8), ageMax: age + 10 }
                        : {}),
                    },
                  }
                : {}),
            }
      const heart: Heart = {
        about: `Synthetic persona number ${i} who enjoys a quiet evening.`,
        values: some(VALUES, 2),
        interests: some(INTERESTS, 3),
        ...(prefs ? { prefs } : {}),
      }
      return { handle: `${handlePrefix}-${i}`, heart, vector }
    })
}
type Persona = ReturnType<ReturnType<typeof personaStream>>[number]

/** Exact top-10 search of `queries` personas (11 with itself), scaled to all `count`. */
const baselineSearch = (matrix: Float32Array, count: number, queries: number) => {
  const batch = Math.max(1, Math.floor((1 << 21) / count))
  const started = performance.now()
  for (let first = 0; first < queries; first += batch) {
    const last = Math.min(queries, first + batch)
    exactSearch(
      matrix,
      // A copy: usearch 2.26's exactSearch ignores a view's byteOffset.
      matrix.slice(first * DIMENSIONS, last * DIMENSIONS),
      DIMENSIONS,
      11,
      MetricKind.IP,
      0,
    )
  }
  return ((performance.now() - started) * count) / queries
}

const ms = (value: number) => `${Math.round(value).toLocaleString('en-US')} ms`

console.log(
  `# dating-venue beat benchmark (${DIMENSIONS}-d, ${CLUSTERS} clusters, PostgreSQL, sizes ${sizes.join(', ')})`,
)
const mb = (bytes: number) => `${Math.round(bytes / 1e6).toLocaleString('en-US')} MB`

/**
 * Admitted personas and their vectors, written as the venue stores them
 * (multi-row inserts). `announce`: each slice's ids are announced to the kept
 * index as the venue's embedder does once it stores vectors, so the index
 * follows them in the background; without it, the next beat finds them all new.
 */
const seed = async (
  venue: Awaited<ReturnType<typeof startTestVenue>>,
  next: (count: number) => Persona[],
  count: number,
  {
    announce = false,
    keep,
  }: { announce?: boolean; keep?: (persona: Persona, at: number) => void } = {},
) => {
  const { db } = venue.deps.database
  for (let start = 0; start < count; start += 2000) {
    const chunk = next(Math.min(2000, count - start))
    if (keep) for (const [at, persona] of chunk.entries()) keep(persona, start + at)
    const rows = await db
      .insert(personaTable)
      .values(
        chunk.map((p) => ({
          handle: p.handle,
          model: 'bench',
          heart: p.heart,
          status: 'admitted' as const,
          admittedAt: new Date(),
        })),
      )
      .returning({ id: personaTable.id })
    await db.insert(personaVectors).values(
      rows.map((row, index) => ({
        personaId: row.id,
        modelId: venue.deps.embedder.modelId,
        dimension: DIMENSIONS,
        vector: vectorToBytes(chunk[index]!.vector),
      })),
    )
    if (announce) venue.deps.matchPool.changed({ in: rows.map((row) => row.id) })
  }
  await venue.deps.database.client.query('UPDATE capacity SET used = used + $1', [count])
  await venue.deps.database.client.query('ANALYZE')
}

/** Every couple has two seats, an opening turn and two notifications. */
const checkWrites = async (venue: Awaited<ReturnType<typeof startTestVenue>>) => {
  const { rows } = await venue.deps.database.client.query(
    `SELECT (SELECT count(*) FROM couples)::int AS couples, (SELECT count(*) FROM courtship_seats)::int AS seats,
            (SELECT count(*) FROM turns WHERE author = 'matchmaker')::int AS intros,
            (SELECT count(*) FROM posts WHERE board = 'notifications')::int AS notes`,
  )
  const written = rows[0] as { couples: number; seats: number; intros: number; notes: number }
  if (
    written.seats !== 2 * written.couples ||
    written.intros !== written.couples ||
    written.notes !== 2 * written.couples
  )
    throw new Error(`the beat's writes are incomplete: ${JSON.stringify(written)}`)
}

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

/**
 * Asks the venue for /health and /api/floor one after the other, 10 ms
 * apart, and watches this process's event loop, until stopped: what a load
 * balancer and a reader see while a beat runs.
 */
const watch = (url: string) => {
  const delay = monitorEventLoopDelay({ resolution: 5 })
  delay.enable()
  const took: Record<'/health' | '/api/floor', number[]> = { '/health': [], '/api/floor': [] }
  let failed = 0
  let stop = false
  const loop = (async () => {
    while (!stop) {
      for (const path of ['/health', '/api/floor'] as const) {
        const started = performance.now()
        const answer = await fetch(`${url}${path}`).catch(() => undefined)
        await answer?.arrayBuffer()
        took[path].push(performance.now() - started)
        if (answer?.status !== 200) failed++
      }
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  })()
  return async () => {
    stop = true
    await loop
    delay.disable()
    const line = (path: keyof typeof took) =>
      `${path} p99 ${percentile(took[path], 99).toFixed(1)} ms (max ${Math.max(...took[path]).toFixed(0)}, ${took[path].length} asked)`
    return `event loop p99 delay ${(delay.percentile(99) / 1e6).toFixed(1)} ms (max ${(delay.max / 1e6).toFixed(0)}); ${line('/health')}; ${line('/api/floor')}; not 200: ${failed}`
  }
}

const pairingLine = (result: Awaited<ReturnType<typeof beatOnce>>) => {
  const run = result.pairing
  if (!run) return 'pairing: none (under two candidates)'
  return `pairing: ${run.mode}, conflicts ${run.conflicts}, in the index process ${ms(run.searchMs)} + snapshot ${ms(run.saveMs)}, phases ${run.phases}, re-queried ${run.requeried.toLocaleString('en-US')}; index process memory as it ended: RSS ${mb(run.memory.rss)}, JS heap ${mb(run.memory.heapUsed)}, typed arrays ${mb(run.memory.arrayBuffers)}`
}

const phases = (result: Awaited<ReturnType<typeof beatOnce>>) => {
  const list = (record: Record<string, number>) =>
    Object.entries(record)
      .map(([phase, value]) => `${phase} ${ms(value)}`)
      .join(', ')
  const inside = result.pairing ? `; in the index process: ${list(result.pairing.stepsMs)}` : ''
  return `${list(result.phasesMs)} (steps: ${list(result.stepsMs)}${inside})`
}

// Warm-up, not reported: a venue's process is up between beats, so its code is compiled by then.
{
  const database = await createTestDatabase(serverUrl)
  const embeddings = await startFakeEmbeddings()
  const venue = await startTestVenue({ embeddings, databaseUrl: database.url })
  try {
    await venue.deps.matchPool.hold()
    await seed(venue, personaStream(7), 600)
    await beatOnce(venue.deps, 'warm-up')
    await seed(venue, personaStream(8, 'again-bench'), 3000)
    await beatOnce(venue.deps, 'warm-up-again')
  } finally {
    await venue.close()
    await embeddings.close()
    await database.drop()
  }
}

/**
 * Waits until the kept index holds `count` personas and has no work queued
 * (the follower puts announced personas in a slice at a time).
 */
const caughtUp = async (venue: Awaited<ReturnType<typeof startTestVenue>>, count: number) => {
  for (;;) {
    await venue.deps.matchPool.exclusive(async () => {})
    const status = await venue.deps.matchPool.status()
    if ((status?.size ?? 0) >= count) return status
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** A timed beat, with the venue asked for /health and /api/floor while it runs. */
const timedBeat = async (venue: Awaited<ReturnType<typeof startTestVenue>>, cycleId: string) => {
  const stopWatching = watch(venue.url)
  const started = performance.now()
  const result = await beatOnce(venue.deps, cycleId)
  const beatMs = performance.now() - started
  await checkWrites(venue)
  return { result, beatMs, responsive: await stopWatching() }
}

for (const size of sizes) {
  const database = await createTestDatabase(serverUrl)
  // Vectors are seeded directly; the embedding endpoint is never called (the beat finds none missing).
  const embeddings = await startFakeEmbeddings()
  const venue = await startTestVenue({
    embeddings,
    databaseUrl: database.url,
    env: {
      VENUE_CAP: String(2 * size + newcomers),
      DATABASE_POOL_MAX: '8',
      VENUE_MATCH_INDEX_NICENESS: process.env.VENUE_MATCH_INDEX_NICENESS ?? '10',
    },
  })
  try {
    // Two venues' worth: the first pairs cold, the second arrives while the index follows.
    const next = personaStream(20_261_121 + size)
    // The first venue's vectors, for the exact search: off the collector's heap.
    const matrix = new Float32Array(size * DIMENSIONS)
    const seeded = performance.now()
    await seed(venue, next, size, {
      keep: (persona, at) => matrix.set(persona.vector, at * DIMENSIONS),
    })
    const seedMs = performance.now() - seeded
    // Above 50,000 the baseline's O(n²) would take longer than everything else: a sample, scaled.
    const queries = size > 50_000 ? Math.min(size, baselineQueries) : size
    const before = baselineSearch(matrix, size, queries)
    const scaled =
      queries < size
        ? ` (${queries.toLocaleString('en-US')} of ${size.toLocaleString('en-US')} queries, scaled up)`
        : ''
    const label = size.toLocaleString('en-US').padStart(7)

    // Cold: what a replica taking the beat over does with an empty index (no snapshot): reads
    // every vector, builds the graph and the lists, pairs.
    await venue.deps.matchPool.hold()
    const cold = await timedBeat(venue, `bench-${size}-cold`)
    console.log(
      `${label} personas, cold beat (a new holder, empty index)  whole beat ${ms(cold.beatMs)}  couples ${cold.result.created.toLocaleString('en-US')}  semantic ${cold.result.semantic}  (seeding ${ms(seedMs)})`,
    )
    console.log(
      `        phases: ${phases(cold.result)}; index: read ${cold.result.pool.read.toLocaleString('en-US')}, waiting after ${cold.result.pool.waiting.toLocaleString('en-US')}`,
    )
    console.log(`        ${pairingLine(cold.result)}`)
    console.log(`        during the beat: ${cold.responsive}`)

    // Warm: the venue as it runs. Personas arrive and are announced as the embedder does; the
    // holder's index takes them in (graph and lists) in the background; the beat then pairs.
    const arrived = performance.now()
    await seed(venue, next, size, { announce: true })
    const arrivalMs = performance.now() - arrived
    const waitingBefore = cold.result.pool.waiting
    await caughtUp(venue, waitingBefore + size)
    const followMs = performance.now() - arrived
    const warm = await timedBeat(venue, `bench-${size}`)
    const after = baselineSearch(matrix, size, queries)
    const baseline = (before + after) / 2
    console.log(
      `${label} personas, warm beat (the index followed them in)  search alone ${ms(baseline)}${scaled} (${ms(before)}, ${ms(after)})  ` +
        `whole beat ${ms(warm.beatMs)}  ratio ${(warm.beatMs / baseline).toFixed(2)}x  couples ${warm.result.created.toLocaleString('en-US')}  semantic ${warm.result.semantic}`,
    )
    console.log(
      `        the index followed ${size.toLocaleString('en-US')} arrivals in the background: current ${ms(followMs)} after the first (their writes took ${ms(arrivalMs)})`,
    )
    console.log(
      `        phases: ${phases(warm.result)}; index: read ${warm.result.pool.read.toLocaleString('en-US')}, waiting after ${warm.result.pool.waiting.toLocaleString('en-US')}`,
    )
    console.log(`        ${pairingLine(warm.result)}`)
    console.log(`        during the beat: ${warm.responsive}`)

    await seed(venue, next, newcomers, { announce: true })
    await caughtUp(venue, warm.result.pool.waiting + newcomers)
    const second = await timedBeat(venue, `bench-${size}-second`)
    console.log(
      `        second beat, ${newcomers} newcomers: ${ms(second.beatMs)} = ${((100 * second.beatMs) / warm.beatMs).toFixed(1)} % of the warm one; couples ${second.result.created}; index read ${second.result.pool.read}, waiting after ${second.result.pool.waiting}`,
    )
    console.log(`        phases: ${phases(second.result)}; ${pairingLine(second.result)}`)
    // The processes' peaks so far: the index process is the venue's (one per venue), so its
    // peak is this size's alone.
    const index = await venue.deps.matchPool.status()
    console.log(
      `        peak memory: index process ${mb(index?.maxRss ?? 0)} (now: ${index?.size.toLocaleString('en-US')} waiting, RSS ${mb(index?.rss ?? 0)}); the venue's process (its requests and writes, and the bench's baseline vectors) ${mb(process.resourceUsage().maxRSS * 1024)}`,
    )
  } finally {
    await venue.close()
    await embeddings.close()
    await database.drop()
  }
}

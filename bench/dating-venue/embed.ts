// Embedding throughput of the worker pool beside the same model on one thread,
// in the same run. Goal: at least 1.8x on 2 cores.
//
//   npx tsx bench/dating-venue/embed.ts
//
// Two load patterns, each measured for the pool and for the baseline:
// - bulk: one embed call with every text (re-embedding after a model change);
// - calls: one text a call, BENCH_CONCURRENCY (16) calls in flight (admissions
//   arriving together; the pool gathers queued texts into batches).
//
// BENCH_TEXTS (160) heart texts per measurement, BENCH_ROUNDS (6) rounds in
// ABBA order, BENCH_THREADS (2) workers in the pool, BENCH_BATCH (the
// service default; a comma list compares several), BENCH_MAIN_THREAD=0 skips
// the informative main-thread row, BENCH_QUIET_WAIT (60) seconds at most to
// wait before each pair for the rest of the machine to go quiet (0: don't).
//
// The baseline is a pool of ONE worker at the same batch size: the same code
// path, model, message passing and normalisation, so the ratio measures
// scaling and nothing else. The bare model on the main thread is printed too.

import { cpus, loadavg } from 'node:os'
import { benchConfig } from '@agents/bench-config'
import {
  cosine,
  createLocalEmbedder,
  DEFAULT_LOCAL_BATCH_SIZE,
  LOCAL_MODEL_ID,
  type LocalEmbedder,
} from '@agents/dating-venue/embeddings'
import { startCpuSample, waitForQuiet } from './embed-machine.ts'
import { loadMainThreadModel } from './embed-main-thread.ts'
import {
  fixed,
  type Pair,
  printPairHeader,
  printPairLine,
  printSummary,
  type Result,
} from './embed-report.ts'
import { generateHeartTexts } from './embed-texts.ts'

const TEXTS = benchConfig.venue.embed.texts
const ROUNDS = benchConfig.venue.embed.rounds
const THREADS = benchConfig.venue.embed.threads
const CONCURRENCY = benchConfig.venue.embed.concurrency
const BATCHES = benchConfig.venue.embed.batches ?? [DEFAULT_LOCAL_BATCH_SIZE]
const MAIN_THREAD = benchConfig.venue.embed.mainThread
const QUIET_WAIT = benchConfig.venue.embed.quietWait
const GOAL = 1.8

type Run = (texts: string[]) => Promise<number>

const texts = generateHeartTexts(TEXTS)
const meanChars = texts.reduce((sum, text) => sum + text.length, 0) / texts.length
const rssMb = () => process.memoryUsage().rss / 1e6

/** One call with every text. */
const bulk =
  (embedder: LocalEmbedder): Run =>
  async (list) =>
    (await embedder.embed(list)).length
/** One text a call, `CONCURRENCY` calls in flight, like admissions arriving together. */
const calls =
  (embedder: LocalEmbedder): Run =>
  async (list) => {
    let next = 0
    let done = 0
    const caller = async () => {
      while (next < list.length) {
        const vectors = await embedder.embed([list[next++]!])
        done += vectors.length // after the await: `done +=` before it would lose updates
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, caller))
    return done
  }

const measure = async (run: Run): Promise<Result> => {
  const stop = startCpuSample()
  const count = await run(texts)
  const cpu = stop()
  if (count !== texts.length) throw new Error(`returned ${count} vectors for ${texts.length}`)
  return { ...cpu, rate: count / cpu.wallSeconds }
}
const waitQuiet = async () => {
  if (QUIET_WAIT > 0 && !(await waitForQuiet({ maxSeconds: QUIET_WAIT })))
    console.log(`(the machine stayed busy for ${QUIET_WAIT} s; measuring anyway)`)
}

console.log(`# Embedding throughput: ${LOCAL_MODEL_ID}`)
console.log(
  `${TEXTS} texts (mean ${fixed(meanChars, 0)} chars), ${ROUNDS} rounds ABBA, pool of ${THREADS}, ` +
    `batch size ${BATCHES.join(', ')}, ${CONCURRENCY} calls in flight; ${cpus().length} x ` +
    `${cpus()[0]?.model ?? '?'}, Node ${process.version}, load average ${loadavg()
      .map((x) => fixed(x, 2))
      .join(' ')}`,
)

// Load every embedder, measuring what each worker adds to the resident set.
const embedders: LocalEmbedder[] = []
const memory: string[] = []
const pairs: (Pair & { runs: [Run, Run] })[] = []
for (const batch of BATCHES) {
  const [single, pool] = [1, THREADS].map((threads) => {
    const embedder = createLocalEmbedder({ threads, batchSize: batch })
    embedders.push(embedder)
    return embedder
  }) as [LocalEmbedder, LocalEmbedder]
  for (const embedder of [single, pool]) {
    const before = rssMb()
    const started = performance.now()
    await embedder.warmUp()
    memory.push(
      `${embedder.threads} worker(s), batch ${batch}: ready in ${fixed((performance.now() - started) / 1000, 2)} s, ` +
        `+${fixed((rssMb() - before) / embedder.threads, 0)} MB resident per worker after load`,
    )
  }
  for (const [name, pattern] of [
    ['bulk', bulk],
    ['calls', calls],
  ] as const)
    pairs.push({
      label: `${name}, batch ${batch}`,
      single: [],
      pool: [],
      runs: [pattern(single), pattern(pool)],
    })
}
let main: { run: Run; results: Result[] } | undefined
if (MAIN_THREAD) {
  const before = rssMb()
  const model = await loadMainThreadModel(BATCHES[0]!)
  memory.push(`main thread model: +${fixed(rssMb() - before, 0)} MB resident after load`)
  main = { run: model.embed, results: [] }
}

// Warm-up (JIT, wasm kernels, allocator), and a check that pool and single
// worker agree: same model, so the same vectors.
const sample = texts.slice(0, 48)
for (const { runs } of pairs) for (const run of runs) await run(sample)
if (main) await main.run(sample)
const [one, two] = await Promise.all(embedders.slice(0, 2).map((e) => e.embed(sample)))
const agreement = Math.min(...one!.map((vector, index) => cosine(vector, two![index]!)))

printPairHeader()
for (let round = 1; round <= ROUNDS; round++) {
  // ABBA: each of a pair runs first as often as last, so a drift in the
  // machine's load weighs on both alike. Each pair waits for a quiet machine
  // and runs back to back (under 10 s), which a quiet spell usually covers.
  for (const pair of pairs) {
    await waitQuiet()
    const [single, pool] = pair.runs
    if (round % 2) {
      pair.single.push(await measure(single))
      pair.pool.push(await measure(pool))
    } else {
      pair.pool.push(await measure(pool))
      pair.single.push(await measure(single))
    }
    printPairLine(round, pair.label, pair.single.at(-1)!, pair.pool.at(-1)!)
  }
  if (main) {
    await waitQuiet()
    main.results.push(await measure(main.run))
  }
}

printSummary({
  pairs,
  threads: THREADS,
  goal: GOAL,
  main: main && {
    label: `model on the main thread, bulk, batch ${BATCHES[0]} (no worker)`,
    results: main.results,
    baseline: pairs[0]!.single,
  },
})
console.log(
  `\nsingle vs pool vectors agree: min cosine ${agreement.toFixed(6)} over ${sample.length} texts`,
)
for (const line of memory) console.log(line)
console.log(`resident set now: ${fixed(rssMb(), 0)} MB`)

await Promise.all(embedders.map((embedder) => embedder.close()))

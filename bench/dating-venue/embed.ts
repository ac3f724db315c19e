// Embedding throughput of the worker pool beside the same model on one thread,
// in the same run. Goal: at least 1.8x on 2 cores.
//
//   npx tsx bench/dating-venue/embed.ts
//
// BENCH_TEXTS (300) heart texts per measurement, BENCH_ROUNDS (4) rounds in
// ABBA order, BENCH_THREADS (2) workers in the pool, BENCH_BATCH (the
// service default; a comma list compares several), BENCH_MAIN_THREAD=0 skips
// the informative main-thread row, BENCH_QUIET_WAIT (60) seconds at most to
// wait before each round for the rest of the machine to go quiet (0: don't).
//
// The baseline is a pool of ONE worker at the same batch size: the same code
// path, model, message passing and normalisation, so the ratio measures
// scaling and nothing else. The bare model on the main thread is printed too.
import { cpus, loadavg } from 'node:os'
import {
  cosine,
  createLocalEmbedder,
  DEFAULT_LOCAL_BATCH_SIZE,
  LOCAL_MODEL_ID,
  type LocalEmbedder,
} from '../../services/dating-venue/src/embeddings/index.ts'
import { type CpuSample, startCpuSample, waitForQuiet } from './embed-machine.ts'
import { loadMainThreadModel } from './embed-main-thread.ts'
import { generateHeartTexts } from './embed-texts.ts'

const TEXTS = Number(process.env.BENCH_TEXTS ?? 300)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4)
const THREADS = Number(process.env.BENCH_THREADS ?? 2)
const BATCHES = (process.env.BENCH_BATCH ?? String(DEFAULT_LOCAL_BATCH_SIZE)).split(',').map(Number)
const MAIN_THREAD = process.env.BENCH_MAIN_THREAD !== '0'
const QUIET_WAIT = Number(process.env.BENCH_QUIET_WAIT ?? 60)
const GOAL = 1.8

type Contestant = { name: string; batch: number; embed: (texts: string[]) => Promise<number> }
type Result = CpuSample & { rate: number }

const texts = generateHeartTexts(TEXTS)
const meanChars = texts.reduce((sum, text) => sum + text.length, 0) / texts.length
const rssMb = () => process.memoryUsage().rss / 1e6
const fixed = (value: number, digits = 1) => value.toFixed(digits)
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

console.log(`# Embedding throughput: ${LOCAL_MODEL_ID}`)
console.log(
  `${TEXTS} texts (mean ${fixed(meanChars, 0)} chars), ${ROUNDS} rounds ABBA, pool of ${THREADS}, ` +
    `batch size ${BATCHES.join(', ')}; ${cpus().length} x ${cpus()[0]?.model ?? '?'}, ` +
    `Node ${process.version}, load average ${loadavg()
      .map((x) => fixed(x, 2))
      .join(' ')}`,
)

// Load every contestant, measuring what each worker adds to the resident set.
const embedders: LocalEmbedder[] = []
const contestants: Contestant[] = []
const memory: string[] = []
for (const batch of BATCHES) {
  for (const threads of [1, THREADS]) {
    const before = rssMb()
    const started = performance.now()
    const embedder = createLocalEmbedder({ threads, batchSize: batch })
    await embedder.warmUp()
    const loadMs = performance.now() - started
    embedders.push(embedder)
    memory.push(
      `${threads} worker(s), batch ${batch}: ready in ${fixed(loadMs / 1000, 2)} s, ` +
        `+${fixed((rssMb() - before) / threads, 0)} MB resident per worker after load`,
    )
    contestants.push({
      name: threads === 1 ? 'single' : 'pool',
      batch,
      embed: async (list) => (await embedder.embed(list)).length,
    })
  }
}
if (MAIN_THREAD) {
  const before = rssMb()
  const model = await loadMainThreadModel(BATCHES[0]!)
  memory.push(`main thread model: +${fixed(rssMb() - before, 0)} MB resident after load`)
  contestants.push({ name: 'main', batch: BATCHES[0]!, embed: model.embed })
}

// Warm-up (JIT, wasm kernels, allocator), and a check that pool and single
// worker agree: same model, so the same vectors.
const sample = texts.slice(0, 48)
for (const contestant of contestants) await contestant.embed(sample)
const [single, pool] = await Promise.all([embedders[0]!.embed(sample), embedders[1]!.embed(sample)])
const agreement = Math.min(...single.map((vector, index) => cosine(vector, pool[index]!)))

const results = new Map<Contestant, Result[]>(contestants.map((c) => [c, []]))
const measure = async (contestant: Contestant): Promise<Result> => {
  const stop = startCpuSample()
  const count = await contestant.embed(texts)
  const cpu = stop()
  if (count !== texts.length) throw new Error(`${contestant.name} returned ${count} vectors`)
  return { ...cpu, rate: count / cpu.wallSeconds }
}
// Another session taking more than a quarter of a core during either half of
// a round makes that round's ratio about the neighbour, not the pool.
const QUIET = 0.25
const isQuiet = (...pair: Result[]) => pair.every((result) => result.otherCores < QUIET)
const describe = (result: Result) =>
  `${fixed(result.rate).padStart(6)}/s (${fixed(result.ourCores, 2)} cores, rest ${fixed(result.otherCores, 2)}, steal ${fixed(result.stealCores, 2)})`
const pairs = BATCHES.map((batch) => {
  const [single, pool] = contestants.filter((c) => c.batch === batch && c.name !== 'main')
  return { batch, single: results.get(single!)!, pool: results.get(pool!)! }
})

const waitQuiet = async () => {
  if (QUIET_WAIT > 0 && !(await waitForQuiet({ maxSeconds: QUIET_WAIT })))
    console.log(`(the machine stayed busy for ${QUIET_WAIT} s; measuring anyway)`)
}
const main = contestants.find((c) => c.name === 'main')

console.log(`\nround  batch  ${'single (1 worker)'.padEnd(47)}${'pool'.padEnd(47)}ratio`)
for (let round = 0; round < ROUNDS; round++) {
  // ABBA: each of a pair runs first as often as last, so a drift in the
  // machine's load weighs on both alike. Each pair waits for a quiet machine
  // and runs back to back (about 15 s), which a quiet spell usually covers.
  for (const { batch, single, pool } of pairs) {
    const pair = contestants.filter((c) => c.batch === batch && c.name !== 'main')
    await waitQuiet()
    for (const contestant of round % 2 === 0 ? pair : [...pair].reverse())
      results.get(contestant)!.push(await measure(contestant))
    const [x, y] = [single.at(-1)!, pool.at(-1)!]
    console.log(
      `${String(round + 1).padStart(5)}  ${String(batch).padStart(5)}  ${describe(x).padEnd(47)}${describe(y).padEnd(47)}${fixed(y.rate / x.rate, 2)}x${isQuiet(x, y) ? '' : '  (machine busy)'}`,
    )
  }
  if (main) {
    await waitQuiet()
    const result = await measure(main)
    results.get(main)!.push(result)
    console.log(
      `${String(round + 1).padStart(5)}  ${String(main.batch).padStart(5)}  main thread: ${describe(result)}`,
    )
  }
}

const mean = (list: Result[], key: keyof Result) =>
  list.reduce((sum, r) => sum + r[key], 0) / list.length
// Texts per CPU-second of this process: what a core buys, whatever the load.
const perCore = (list: Result[]) =>
  list.reduce((sum, r) => sum + r.rate / r.ourCores, 0) / list.length
const row = (label: string, list: Result[], ratio: string) =>
  console.log(
    `| ${label} | ${fixed(mean(list, 'rate'))} | ${fixed(mean(list, 'ourCores'), 2)} | ${fixed(perCore(list))} | ${fixed(mean(list, 'otherCores'), 2)} | ${fixed(mean(list, 'stealCores'), 2)} | ${ratio} |`,
  )
console.log(
  '\n| figure | texts/s | cores used | texts per CPU-second | rest of machine (cores) | steal | ratio to single |',
)
console.log('|---|---|---|---|---|---|---|')
const verdicts: string[] = []
for (const { batch, single, pool } of pairs) {
  const ratios = pool.map((r, index) => r.rate / single[index]!.rate)
  const quiet = ratios.filter((_, index) => isQuiet(single[index]!, pool[index]!))
  const ofMeans = fixed(mean(pool, 'rate') / mean(single, 'rate'), 2)
  row(`1 worker, batch ${batch} (baseline)`, single, '1.00x')
  row(
    `pool of ${THREADS}, batch ${batch}`,
    pool,
    `**${ofMeans}x** (rounds ${ratios.map((r) => fixed(r, 2)).join(', ')})`,
  )
  verdicts.push(
    `batch ${batch}: ratio of means ${ofMeans}x, median of rounds ${fixed(median(ratios), 2)}x; ` +
      (quiet.length > 0
        ? `quiet rounds only (${quiet.length} of ${ratios.length}): median ${fixed(median(quiet), 2)}x`
        : 'no quiet round: run again on a quiet machine') +
      `; goal ${GOAL}x`,
  )
}
if (main) {
  const list = results.get(main)!
  const baseline = pairs[0]!.single
  row(
    `model on the main thread, batch ${main.batch} (no worker)`,
    list,
    `${fixed(mean(list, 'rate') / mean(baseline, 'rate'), 2)}x`,
  )
}
console.log('')
for (const line of verdicts) console.log(line)
console.log(
  `\nsingle vs pool vectors agree: min cosine ${agreement.toFixed(6)} over ${sample.length} texts`,
)
for (const line of memory) console.log(line)
console.log(`resident set now: ${fixed(rssMb(), 0)} MB`)

await Promise.all(embedders.map((embedder) => embedder.close()))

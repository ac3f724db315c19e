import { benchConfig } from '@agents/bench-config'
import {
  allowedCompiledPair,
  allowedPair,
  compileFilter,
  type PairingCandidate,
  type PairingStats,
  type Prefs,
  pairApproximate,
  pairCandidates,
  pairExact,
} from '@agents/dating-venue/bench'
import { seededRandom } from '@agents/service-kit'
// Dating-venue pairing benchmark: the matchmaker's pairing (mutual nearest
// neighbours under the hard filters, `pairCandidates`) beside the exact
// top-10 neighbour search alone over the same vectors (usearch
// `exactSearch`, every persona a query), in the same run, interleaved.
// Personas are synthetic and seeded: 512-d vectors around 50 cluster
// centres, L2-normalised, and sparse `heart.prefs`.
//
//   npx tsx bench/dating-venue/pairing-bench.ts
//
// BENCH_SIZES (default 1000,10000,50000), BENCH_REPEATS (default 3),
// BENCH_AGREEMENT_AT (default 10000,50000: sizes where approximate pairing is
// compared with exact pairing; exact pairing costs about one baseline),
// BENCH_BASELINE_QUERIES (default 10000: above it the baseline runs that
// many queries and scales up; an exact query costs the same whichever it is).
import { exactSearch, MetricKind } from 'usearch'

const sizes = benchConfig.venue.pairing.sizes
const repeats = benchConfig.venue.pairing.repeats
const agreementAt = benchConfig.venue.pairing.agreementAt
const baselineQueries = benchConfig.venue.pairing.baselineQueries
const DIMENSIONS = 512
const CLUSTERS = 50

const makePersonas = (count: number, seed: number): PairingCandidate[] => {
  const random = seededRandom(seed)
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
  const pick = <item>(items: readonly item[]) => items[Math.floor(random() * items.length)]!
  const centres = Array.from({ length: CLUSTERS }, () =>
    Float32Array.from({ length: DIMENSIONS }, gaussian),
  )
  // Noise as large as the centre: same-cluster cosines around 0.5, others around 0, like
  // sentence embeddings of texts on a shared theme versus unrelated ones.
  const vector = () => {
    const centre = pick(centres)
    const v = Float32Array.from(centre, (c) => c + gaussian())
    const norm = Math.hypot(...v)
    for (let k = 0; k < DIMENSIONS; k++) v[k]! /= norm
    return v
  }
  const genders = ['woman', 'Woman', 'man', 'Man ', 'non-binary'] as const
  const languages = ['English', 'english', 'Spanish', 'French', 'German', 'Mandarin'] as const
  const ethnicities = ['Black', 'White', 'Asian', 'Latina', 'Mixed'] as const
  const prefs = (): Prefs | undefined => {
    // Most docs state no filters at all; those that do state a few fields.
    if (random() < 0.55) return undefined
    const age = 18 + Math.floor(random() * 50)
    const self: NonNullable<Prefs['self']> = {}
    if (random() < 0.8) self.gender = pick(genders)
    if (random() < 0.7) self.age = age
    if (random() < 0.4)
      self.languages = random() < 0.7 ? [pick(languages)] : [pick(languages), pick(languages)]
    if (random() < 0.2) self.ethnicity = pick(ethnicities)
    if (random() < 0.3) self.substances = pick(['none', 'social', 'smoker'] as const)
    if (random() < 0.3) self.kids = pick(['open', 'want', 'have', 'no'] as const)
    const seek: NonNullable<Prefs['seek']> = {}
    if (random() < 0.6)
      seek.genders = random() < 0.85 ? [pick(genders)] : [pick(genders), pick(genders)]
    if (random() < 0.4) {
      seek.ageMin = Math.max(18, age - 2 - Math.floor(random() * 10))
      seek.ageMax = age + 2 + Math.floor(random() * 12)
    }
    if (random() < 0.15) seek.languages = [pick(languages)]
    if (random() < 0.05) seek.ethnicities = [pick(ethnicities)]
    if (random() < 0.15) seek.dealbreakers = { substances: ['smoker'] }
    return { self, seek }
  }
  return Array.from({ length: count }, (_, i) => ({ id: i + 1, vector: vector(), prefs: prefs() }))
}

/** Exact top-10 neighbours of every persona (11 with itself), in query batches usearch can hold. */
const baselineSearch = (matrix: Float32Array, count: number, queries: number) => {
  const batch = Math.max(1, Math.floor((1 << 21) / count))
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
}

const time = <result>(run: () => result) => {
  const started = performance.now()
  const result = run()
  return { ms: performance.now() - started, result }
}
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}
const ms = (value: number) => `${Math.round(value).toLocaleString('en-US')} ms`
const key = ([a, b]: readonly [number, number]) => `${a}:${b}`
const agreement = (exact: [number, number][], approximate: [number, number][]) => {
  const approximateKeys = new Set(approximate.map(key))
  const shared = exact.filter((pair) => approximateKeys.has(key(pair))).length
  return { shared, percent: (100 * shared) / Math.max(1, exact.length) }
}

console.log(`pairing bench: ${DIMENSIONS}-d, ${CLUSTERS} clusters, sizes ${sizes.join(', ')}`)

// The filters alone: compiling every persona's prefs once, then the pair checks the beat
// makes (random pairs over 50,000, so mostly cache misses). Three rounds, the last reported.
{
  const { filterPersonas, filterChecks: checks } = benchConfig.venue.pairing
  const personas = makePersonas(filterPersonas, 7)
  const random = seededRandom(11)
  const picks = Int32Array.from({ length: 2 * checks }, () => Math.floor(random() * filterPersonas))
  let line = ''
  for (let round = 0; round < 3; round++) {
    const compile = time(() => personas.map((persona) => compileFilter(persona.prefs)))
    const compiled = compile.result
    let allowed = 0
    const fast = time(() => {
      for (let c = 0; c < 2 * checks; c += 2)
        if (allowedCompiledPair(compiled[picks[c]!]!, compiled[picks[c + 1]!]!)) allowed++
    })
    const slow = time(() => {
      for (let c = 0; c < checks / 5; c += 2)
        allowedPair(personas[picks[c]!]!.prefs, personas[picks[c + 1]!]!.prefs)
    })
    line = `filters: compiling ${filterPersonas.toLocaleString('en-US')} prefs ${ms(compile.ms)}; a pair check ${((fast.ms * 1e6) / checks).toFixed(0)} ns compiled, ${((slow.ms * 1e6) / (checks / 10)).toFixed(0)} ns with allowedPair compiling both sides; ${((100 * allowed) / checks).toFixed(1)} % of random pairs allowed`
  }
  console.log(line)
}

// Warm-up (the service process stays up between beats, so its code is compiled by then).
{
  const personas = makePersonas(Math.min(2_000, Math.max(...sizes)), 3)
  pairExact(personas)
  pairApproximate(personas)
}
for (const size of sizes) {
  const personas = makePersonas(size, 20_261_121 + size)
  const matrix = new Float32Array(size * DIMENSIONS)
  for (const [i, persona] of personas.entries()) matrix.set(persona.vector, i * DIMENSIONS)
  const queries = Math.min(size, baselineQueries)
  const baselines: number[] = []
  const pairings: number[] = []
  let stats: PairingStats | undefined
  let pairs: [number, number][] = []
  // Interleaved: the machine's load drifts more between loops than within a round. Small sizes
  // run in tens of ms, where one scheduler hiccup is a large share: ten times the rounds there.
  const rounds = size <= 2_000 ? 10 * repeats : repeats
  for (let round = 0; round < rounds; round++) {
    baselines.push((time(() => baselineSearch(matrix, size, queries)).ms * size) / queries)
    const run = time(() => pairCandidates(personas, { onStats: (s) => (stats = s) }))
    pairings.push(run.ms)
    pairs = run.result
  }
  const baseline = median(baselines)
  const pairing = median(pairings)
  const scaled = queries < size ? ` (${queries.toLocaleString('en-US')} queries, scaled)` : ''
  console.log(`\n${size.toLocaleString('en-US')} personas, ${rounds} rounds, medians`)
  console.log(`  exact top-10 search, all queries (baseline): ${ms(baseline)}${scaled}`)
  if (rounds <= 5) console.log(`    each round: ${baselines.map(ms).join(', ')}`)
  console.log(
    `  pairCandidates (${stats?.mode}): ${ms(pairing)}${rounds <= 5 ? `; each: ${pairings.map(ms).join(', ')}` : ''}`,
  )
  console.log(`  ratio pairing / baseline: ${(pairing / baseline).toFixed(2)}x`)
  console.log(
    `  pairs: ${pairs.length.toLocaleString('en-US')} (${((200 * pairs.length) / size).toFixed(1)} % of personas paired); phases ${stats?.phases}, re-queried ${stats?.requeried}`,
  )
  if (agreementAt.includes(size)) {
    const exact = time(() => pairExact(personas))
    const approximate = time(() => pairApproximate(personas))
    const { shared, percent } = agreement(exact.result, approximate.result)
    console.log(
      `  approximate vs exact pairing: ${percent.toFixed(2)} % of exact pairs identical (${shared} of ${exact.result.length}; approximate formed ${approximate.result.length}); exact pairing took ${ms(exact.ms)}, approximate ${ms(approximate.ms)}`,
    )
  }
}

// Every benchmark's knobs in one place: sizes, rounds, durations, connections
// and the database to use. Each knob keeps the environment variable it had
// (set it to override), a default for a full run and a tiny value for the
// smoke profile, which `npm run bench:smoke` selects (`BENCH_SMOKE=1` or
// `--smoke`) to prove every benchmark still runs, not to measure anything.
// The same variable name can mean different things in different benches
// (`BENCH_ROUNDS`): each bench reads only its own section.

/** True in the smoke profile: `BENCH_SMOKE=1`, or `--smoke` on the command line. */
export const SMOKE = process.env.BENCH_SMOKE === '1' || process.argv.includes('--smoke')
// Benches spawn their sub-benches and servers as child processes: they inherit the profile.
if (SMOKE) process.env.BENCH_SMOKE = '1'

const raw = (name: string) => {
  const value = process.env[name]
  return value === undefined || value === '' ? undefined : value
}
const number = (name: string, full: number, smoke = full) => {
  const value = raw(name)
  return value === undefined ? (SMOKE ? smoke : full) : Number(value)
}
const numbers = (name: string, full: number[], smoke = full) => {
  const value = raw(name)
  return value === undefined ? (SMOKE ? smoke : full) : value.split(',').map(Number)
}
const text = (name: string, full: string, smoke = full) => raw(name) ?? (SMOKE ? smoke : full)
const off = (name: string) => raw(name) === 'off'

const LOCAL_TEST_DATABASE = 'postgres://postgres@127.0.0.1:5432/test'
/**
 * The PostgreSQL server of a bench that creates and drops its own database on
 * it: `DATABASE_URL` or `TEST_DATABASE_URL`; unset, the bench skips its
 * PostgreSQL figures.
 */
const optionalServer = () => raw('DATABASE_URL') ?? raw('TEST_DATABASE_URL')
/**
 * The PostgreSQL server of a bench that needs one: `BENCH_DATABASE_URL`, else
 * `TEST_DATABASE_URL`, else the local test server in a full run; in the smoke
 * profile only what is set (unset, the bench prints a note and skips).
 */
const requiredServer = () =>
  raw('BENCH_DATABASE_URL') ?? raw('TEST_DATABASE_URL') ?? (SMOKE ? undefined : LOCAL_TEST_DATABASE)

/** The knobs, by bench; read once at start-up. */
export const benchConfig = Object.freeze({
  smoke: SMOKE,
  launchRouter: {
    /** `BENCH_SECONDS`: seconds per figure (autocannon, the miner; OpenSSL's at most 5). */
    seconds: number('BENCH_SECONDS', 8, 1),
    /** `BENCH_MINER_WARM_UP`: candidates each miner pool tries before it is timed. */
    minerWarmUp: number('BENCH_MINER_WARM_UP', 2_000_000, 100_000),
    serverUrl: optionalServer(),
    /** `BENCH_LIMITS=off`: the router server without request limits (set by run.ts per figure). */
    requestLimits: !off('BENCH_LIMITS'),
    /** `BENCH_HOT_PATH=off`: the router server without its hot path, every request through the app (set by run.ts per figure). */
    hotPath: !off('BENCH_HOT_PATH'),
  },
  limits: {
    /** `BENCH_TAKES`: takes per figure of the limiter's stores (run.ts). */
    takes: number('BENCH_TAKES', 3000, 50),
    serverUrl: optionalServer(),
    /** `BENCH_REQUESTS`: requests per round through the middleware (middleware.ts). */
    requests: number('BENCH_REQUESTS', 4000, 100),
    /** `BENCH_ROUNDS`: alternating rounds (middleware.ts). */
    rounds: number('BENCH_ROUNDS', 5, 1),
  },
  payments: {
    /** `BENCH_ROUNDS`: paid requests per variant. */
    rounds: number('BENCH_ROUNDS', 200, 3),
    /** `BENCH_WARMUP_ROUNDS`: rounds before each phase, not timed. */
    warmUpRounds: number('BENCH_WARMUP_ROUNDS', 5, 1),
    /** `BENCH_BLOCK_ROUNDS`: rounds of the block-time figures (0: that phase is skipped; the paths are the instant phase's). */
    blockRounds: number('BENCH_BLOCK_ROUNDS', 15, 0),
    /** `BENCH_PROFILE=1`: count and time every query. */
    profile: raw('BENCH_PROFILE') === '1',
    /** `BENCH_BATCHES`: batches of the facilitator client bench. */
    batches: number('BENCH_BATCHES', 40, 2),
    serverUrl: optionalServer(),
  },
  swapRail: {
    /** `BENCH_SECONDS`: seconds per load figure. */
    seconds: number('BENCH_SECONDS', 10, 1),
    /** `BENCH_ROUNDS`: alternating rounds. */
    rounds: number('BENCH_ROUNDS', 2, 1),
    /** `BENCH_POOL_MAX`: the rail's database pool. */
    poolMax: number('BENCH_POOL_MAX', 20),
    /** `BENCH_WARMUP_SECONDS`: warm-up of each side before the rounds. */
    warmUpSeconds: number('BENCH_WARMUP_SECONDS', 2, 1),
    /** `BENCH_OFFERS`: offers in the book. */
    bookOffers: number('BENCH_OFFERS', 1000, 200),
    /** `BENCH_OFFER_MTOK`: the least and most capacity of an offer (the cheapest must fill up in the run). */
    offerMtok: numbers('BENCH_OFFER_MTOK', [200, 3000], [10, 40]) as [number, number],
    databaseUrl: requiredServer(),
    /**
     * `BENCH_PGBOUNCER_URL`, else `TEST_PGBOUNCER_URL`: PgBouncer in transaction
     * mode in front of that server (scripts/ci/start-pgbouncer.sh); set, the
     * rail also runs through it. Unset, only prepared against unprepared.
     */
    pgbouncerUrl: raw('BENCH_PGBOUNCER_URL') ?? raw('TEST_PGBOUNCER_URL'),
    offers: {
      /** `BENCH_SECONDS`: seconds per concurrent figure. */
      seconds: number('BENCH_SECONDS', 5, 1),
      /** `BENCH_ROUNDS`: alternating rounds. */
      rounds: number('BENCH_ROUNDS', 2, 1),
      /** `BENCH_SEQUENTIAL`: sequential requests per figure. */
      sequential: number('BENCH_SEQUENTIAL', 200, 20),
      /** `BENCH_CONNECTIONS`: concurrent connections. */
      connections: number('BENCH_CONNECTIONS', 10, 4),
    },
    limits: {
      /** `BENCH_ROUNDS`: alternating rounds. */
      rounds: number('BENCH_ROUNDS', 2, 1),
      /** `BENCH_REQUESTS`: sequential requests per figure. */
      sequential: number('BENCH_REQUESTS', 300, 20),
      /** `BENCH_CONCURRENT_REQUESTS`: concurrent requests per figure. */
      concurrent: number('BENCH_CONCURRENT_REQUESTS', 600, 40),
      /** `BENCH_CONNECTIONS`: concurrent connections. */
      connections: number('BENCH_CONNECTIONS', 10, 4),
      /** `BENCH_BOUNDS=off`: the rail without its book bounds. */
      bounds: !off('BENCH_BOUNDS'),
      /** `BENCH_FLOOD_OFFERS`: offers posted from one address with the default limits. */
      floodOffers: number('BENCH_FLOOD_OFFERS', 1500, 100),
    },
  },
  venue: {
    beat: {
      /** `BENCH_SIZES`: agents in the pool, one figure each. */
      sizes: numbers('BENCH_SIZES', [1000, 10_000, 50_000, 200_000], [200]),
      /** `BENCH_NEWCOMERS`: personas admitted between the first beat and the second. */
      newcomers: number('BENCH_NEWCOMERS', 300, 20),
      /** `BENCH_BASELINE_QUERIES`: above 50,000 personas, exact queries of the baseline before it scales up. */
      baselineQueries: number('BENCH_BASELINE_QUERIES', 5000, 200),
      databaseUrl: requiredServer(),
    },
    pairing: {
      /** `BENCH_SIZES`: agents in the pool, one figure each. */
      sizes: numbers('BENCH_SIZES', [1000, 10_000, 50_000], [500]),
      /** `BENCH_REPEATS`: repeats per figure (the fastest is kept). */
      repeats: number('BENCH_REPEATS', 3, 1),
      /** `BENCH_AGREEMENT_AT`: sizes at which approximate and exact are compared. */
      agreementAt: numbers('BENCH_AGREEMENT_AT', [10_000, 50_000], [500]),
      /** `BENCH_BASELINE_QUERIES`: exact queries of the baseline before it scales up. */
      baselineQueries: number('BENCH_BASELINE_QUERIES', 10_000, 500),
      /** `BENCH_FILTER_PERSONAS`: personas whose prefs the filters' figure compiles. */
      filterPersonas: number('BENCH_FILTER_PERSONAS', 50_000, 1000),
      /** `BENCH_FILTER_CHECKS`: random pair checks of the filters' figure. */
      filterChecks: number('BENCH_FILTER_CHECKS', 2_000_000, 10_000),
    },
    embed: {
      /** `BENCH_TEXTS`: texts per round. */
      texts: number('BENCH_TEXTS', 160, 8),
      /** `BENCH_ROUNDS`: rounds per pool size. */
      rounds: number('BENCH_ROUNDS', 6, 1),
      /** `BENCH_THREADS`: workers in the measured pool. */
      threads: number('BENCH_THREADS', 2),
      /** `BENCH_CONCURRENCY`: texts in flight. */
      concurrency: number('BENCH_CONCURRENCY', 16, 4),
      /** `BENCH_BATCH`: batch sizes (comma-separated; default the venue's). */
      batches: raw('BENCH_BATCH')?.split(',').map(Number),
      /** `BENCH_MAIN_THREAD=0`: skip the bare model on the main thread. */
      mainThread: text('BENCH_MAIN_THREAD', '1', '0') !== '0',
      /** `BENCH_QUIET_WAIT`: seconds to wait for a quiet machine before each pair (0: don't). */
      quietWait: number('BENCH_QUIET_WAIT', 60, 0),
    },
    floor: {
      /** `BENCH_STREAMS`: open event streams. */
      streams: number('BENCH_STREAMS', 1000, 20),
      /** `BENCH_WINDOW_MS`: how long the posts flow. */
      windowMs: number('BENCH_WINDOW_MS', 20_000, 1000),
      /** `BENCH_REPORT_LAG_MS`: settle before and after each window (PostgreSQL reports idle counters up to 10 s late). */
      reportLagMs: number('BENCH_REPORT_LAG_MS', 11_000, 0),
      databaseUrl: requiredServer(),
    },
    pglite: {
      /** `BENCH_ROUNDS`: statements per figure. */
      rounds: number('BENCH_ROUNDS', 3000, 100),
      /** `BENCH_WARMUP_ROUNDS`: calls before the timed ones. */
      warmUp: number('BENCH_WARMUP_ROUNDS', 300, 10),
    },
    report: {
      /** `BENCH_ROUNDS`: paid reports per relay. */
      rounds: number('BENCH_ROUNDS', 100, 2),
      /** `BENCH_WARMUP_ROUNDS`: rounds before each phase, not timed. */
      warmUpRounds: number('BENCH_WARMUP_ROUNDS', 5, 1),
      /** `BENCH_BLOCK_ROUNDS`: rounds of the block-time figures (0: that phase is skipped). */
      blockRounds: number('BENCH_BLOCK_ROUNDS', 15, 0),
      /** `BENCH_RECEIPT_POLLING_MS`: the facilitator's receipt polling. */
      receiptPollingMs: number('BENCH_RECEIPT_POLLING_MS', 5),
      /** `BENCH_FACILITATOR=inproc`: the facilitator in the bench's process. */
      facilitator: text('BENCH_FACILITATOR', 'process'),
      /** `BENCH_CLIENT`: HTTP clients to compare (`undici`, `fetch`; comma-separated). */
      clients: text('BENCH_CLIENT', 'undici').split(','),
      /** `BENCH_COMPARE`: another checkout of this repository, measured in the same rounds. */
      compare: raw('BENCH_COMPARE'),
      serverUrl: optionalServer(),
    },
    chat: {
      /** `BENCH_CONCURRENCY`: concurrent askers, one figure each. */
      levels: numbers('BENCH_CONCURRENCY', [16, 32, 64], [4]),
      /** `BENCH_WINDOW_MS`: how long each figure runs. */
      windowMs: number('BENCH_WINDOW_MS', 10_000, 500),
      serverUrl: optionalServer(),
    },
    admin: {
      /** `BENCH_PERSONAS`: personas seeded. */
      personas: number('BENCH_PERSONAS', 100_000, 300),
      /** `BENCH_TURNS`: courtship turns seeded. */
      turns: number('BENCH_TURNS', 1_000_000, 1000),
      /** `BENCH_ROUNDS`: snapshots timed. */
      rounds: number('BENCH_ROUNDS', 30, 2),
      databaseUrl: requiredServer(),
    },
    limits: {
      /** `BENCH_ROUNDS`: alternating rounds. */
      rounds: number('BENCH_ROUNDS', 20, 2),
      /** `BENCH_BATCH`: requests per round. */
      batch: number('BENCH_BATCH', 50, 10),
      databaseUrl: requiredServer(),
    },
  },
  abuse: {
    /** `BENCH_SECONDS`: seconds per flood. */
    seconds: number('BENCH_SECONDS', 10, 1),
    /** `BENCH_WARMUP_SECONDS`: warm-up before each flood. */
    warmUpSeconds: number('BENCH_WARMUP_SECONDS', 2, 0),
    /** `BENCH_ABUSE_CONNECTIONS`: the flood's connections. */
    connections: number('BENCH_ABUSE_CONNECTIONS', 8, 2),
    serverUrl: optionalServer(),
    /** `BENCH_SERVICES`: which services (`router,venue,rail`; default all). */
    services: raw('BENCH_SERVICES')
      ?.split(',')
      .map((name) => name.trim()),
    /** `BENCH_LIMITER_COST`: `short`, `full` or `0` (not run): the limiter-cost figures after the floods. */
    limiterCost: text('BENCH_LIMITER_COST', 'short', '0'),
    /** `BENCH_ROUTER_INTERVAL_MS`, `BENCH_VENUE_INTERVAL_MS`, `BENCH_RAIL_INTERVAL_MS`: a honest agent's pace. */
    routerIntervalMs: number('BENCH_ROUTER_INTERVAL_MS', 250),
    venueIntervalMs: number('BENCH_VENUE_INTERVAL_MS', 500),
    railIntervalMs: number('BENCH_RAIL_INTERVAL_MS', 500),
    /** `BENCH_LOG_LEVEL`: the measured services' log level. */
    logLevel: text('BENCH_LOG_LEVEL', 'silent'),
    /** `BENCH_VERBOSE`: copy the services' output to stderr. */
    verbose: raw('BENCH_VERBOSE') !== undefined,
  },
})

export type BenchConfig = typeof benchConfig

/** Prints why a part of a bench is skipped (the smoke profile without PostgreSQL). */
export const skipWithoutPostgres = (what: string) =>
  process.stdout.write(
    `skipped: ${what} needs PostgreSQL (set TEST_DATABASE_URL or BENCH_DATABASE_URL)\n`,
  )

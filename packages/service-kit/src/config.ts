import { z } from 'zod'

/** Thrown at boot when the environment does not satisfy a service's config schema. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError'
  readonly problems: string[]

  constructor(problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`)
    this.problems = problems
  }
}

/**
 * Parses `env` with a zod schema once, reporting every problem in one error,
 * and returns a frozen config object.
 *
 * @example
 * const config = loadConfig(z.object({ PORT: z.coerce.number().default(3001) }))
 */
export const loadConfig = <schema extends z.ZodType>(
  schema: schema,
  env: Record<string, string | undefined> = process.env,
): Readonly<z.output<schema>> => {
  // Empty strings mean "unset": `FOO= npm start` should fall back to the default.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''))
  const result = schema.safeParse(cleaned)
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`),
    )
  }
  return Object.freeze(result.data) as Readonly<z.output<schema>>
}

/** Port numbers from env: an integer 0..65535 (0 picks a free port). */
export const Port = z.coerce.number().int().min(0).max(65535)

/** A log level pino understands. */
export const LogLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])

/** A comma-separated env list (`a, b,c`), trimmed, empty items dropped; unset is `[]`. */
export const CommaList = z
  .string()
  .default('')
  .transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  )

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])

/**
 * `BASE_URL`: the service's public origin (`https://venue.example`), the one
 * source of every absolute URL it writes (402 resources, documents, links),
 * never the request's `Host` or `X-Forwarded-Host`. An http(s) URL with no
 * path, query, fragment or credentials; normalised to its origin (no
 * trailing slash), so `${BASE_URL}/path` is always one URL.
 */
export const BaseUrl = z.string().transform((value, context) => {
  const url = URL.canParse(value) ? new URL(value) : undefined
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    context.addIssue({ code: 'custom', message: 'expected an http(s) URL' })
    return z.NEVER
  }
  if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) {
    context.addIssue({
      code: 'custom',
      message:
        'expected an origin only (scheme, host, port): no path, query, fragment or credentials',
    })
    return z.NEVER
  }
  return url.origin
})

/**
 * The production rule of `BASE_URL`, for a config's `superRefine`: with
 * `NODE_ENV=production` it is required (without it a service could only
 * name itself by the listening address, or by what a request claims), and
 * https unless its host is loopback.
 */
export const refineBaseUrl = (
  config: { NODE_ENV?: string | undefined; BASE_URL?: string | undefined },
  context: z.RefinementCtx,
) => {
  if (config.NODE_ENV !== 'production') return
  if (!config.BASE_URL)
    context.addIssue({
      code: 'custom',
      path: ['BASE_URL'],
      message:
        'required in production: every absolute URL the service writes is built on it, never on the request',
    })
  else if (
    new URL(config.BASE_URL).protocol !== 'https:' &&
    !LOOPBACK_HOSTS.has(new URL(config.BASE_URL).hostname)
  )
    context.addIssue({
      code: 'custom',
      path: ['BASE_URL'],
      message: 'expected https in production (http only on a loopback host)',
    })
}

/**
 * The settings every stateful HTTP service reads the same way: listening,
 * logging, public URL, body limit, and its database (PostgreSQL when
 * DATABASE_URL is set, else PGlite in DATA_DIR). Spread into a service's
 * config object.
 */
export const serviceConfigShape = ({ port, dataDir }: { port: number; dataDir: string }) => ({
  NODE_ENV: z.string().optional(),
  PORT: Port.default(port),
  HOST: z.string().default('127.0.0.1'),
  LOG_LEVEL: LogLevel.default('info'),
  /**
   * Public base URL: every absolute URL the service writes; defaults to the listening
   * address, required in production (`refineBaseUrl` in the service's `superRefine`).
   */
  BASE_URL: BaseUrl.optional(),
  DATABASE_URL: z.string().url().optional(),
  /**
   * How DATABASE_URL pools its server connections: `session` (a direct
   * connection, or a pooler in session mode) or `transaction` (PgBouncer,
   * Supavisor or RDS Proxy handing a server connection to many clients):
   * then no named prepared statements and no session state on it
   * (`refineDatabase`).
   */
  DATABASE_POOL_MODE: z.enum(['session', 'transaction']).default('session'),
  /** A direct, session-capable URL: migrations and session locks. Required with DATABASE_POOL_MODE=transaction. */
  DATABASE_DIRECT_URL: z.string().url().optional(),
  DATA_DIR: z.string().default(dataDir),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(500).default(20),
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(64 * 1024),
  /** The operator's bearer token for `GET /metrics`; unset, metrics are not served (403). */
  METRICS_TOKEN: z.string().min(16, 'METRICS_TOKEN: at least 16 characters').optional(),
})

type DatabaseSettings = {
  DATABASE_URL?: string | undefined
  DATABASE_POOL_MODE: 'session' | 'transaction'
  DATABASE_DIRECT_URL?: string | undefined
  DATA_DIR: string
  DATABASE_POOL_MAX: number
}

/**
 * The database settings' rules, for a config's `superRefine`: a transaction
 * pooler keeps no session, so migrations and the session locks need
 * DATABASE_DIRECT_URL; neither it nor the mode means anything without
 * DATABASE_URL. Not guessed from the URL: no pooler says reliably what it is.
 */
export const refineDatabase = (config: DatabaseSettings, context: z.RefinementCtx) => {
  const issue = (path: keyof DatabaseSettings, message: string) =>
    context.addIssue({ code: 'custom', path: [path], message })
  if (!config.DATABASE_URL) {
    if (config.DATABASE_POOL_MODE === 'transaction')
      issue('DATABASE_POOL_MODE', 'transaction needs DATABASE_URL (the pooled PostgreSQL URL)')
    if (config.DATABASE_DIRECT_URL)
      issue('DATABASE_DIRECT_URL', 'set without DATABASE_URL: set both, or neither (PGlite)')
    return
  }
  if (config.DATABASE_POOL_MODE === 'transaction' && !config.DATABASE_DIRECT_URL)
    issue(
      'DATABASE_DIRECT_URL',
      'required with DATABASE_POOL_MODE=transaction: a direct, session-capable URL of the same database for migrations and session locks',
    )
}

/** `openDatabase`'s connection parameters from the settings of `serviceConfigShape`. */
export const databaseOptions = (config: DatabaseSettings) => ({
  url: config.DATABASE_URL,
  dataDir: config.DATA_DIR,
  poolMax: config.DATABASE_POOL_MAX,
  poolMode: config.DATABASE_POOL_MODE,
  directUrl: config.DATABASE_DIRECT_URL,
})

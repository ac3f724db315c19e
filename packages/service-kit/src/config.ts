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
  /** Public base URL used in documents and links; defaults to the listening address. */
  BASE_URL: z.string().url().optional(),
  DATABASE_URL: z.string().url().optional(),
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

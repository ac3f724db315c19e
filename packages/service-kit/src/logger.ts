import { type Logger, pino } from 'pino'

export type { Logger }

export type CreateLoggerParameters = {
  name: string
  level?: string
}

/** A pino logger writing JSON lines to stdout; `LOG_LEVEL=silent` mutes it (tests). */
export const createLogger = ({
  name,
  level = process.env.LOG_LEVEL ?? 'info',
}: CreateLoggerParameters) => pino({ name, level })

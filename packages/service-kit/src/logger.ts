import { type DestinationStream, type Logger, pino } from 'pino'
import { sanitizeError } from './sanitize-error.ts'

export type { Logger }

export type CreateLoggerParameters = {
  name: string
  level?: string
  /** Where the JSON lines go (tests capture them); stdout by default. */
  destination?: DestinationStream
}

/**
 * A pino logger writing JSON lines to stdout; `LOG_LEVEL=silent` mutes it (tests).
 * Writes are buffered and asynchronous: a synchronous write per request
 * halved list_pads throughput (bench/README.md). pino flushes the buffer on exit.
 * An `err` field is logged sanitized (`sanitizeError`): a failed query's
 * parameters and the values in a database message are user text.
 */
export const createLogger = ({
  name,
  level = process.env.LOG_LEVEL ?? 'info',
  destination = pino.destination({ dest: 1, sync: false, minLength: 4096 }),
}: CreateLoggerParameters) =>
  pino({ name, level, serializers: { err: (error: unknown) => sanitizeError(error) } }, destination)

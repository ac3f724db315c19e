import { type Logger, pino } from 'pino'

export type { Logger }

export type CreateLoggerParameters = {
  name: string
  level?: string
}

/**
 * A pino logger writing JSON lines to stdout; `LOG_LEVEL=silent` mutes it (tests).
 * Writes are buffered and asynchronous: a synchronous write per request
 * halved list_pads throughput (bench/README.md). pino flushes the buffer on exit.
 */
export const createLogger = ({
  name,
  level = process.env.LOG_LEVEL ?? 'info',
}: CreateLoggerParameters) =>
  pino({ name, level }, pino.destination({ dest: 1, sync: false, minLength: 4096 }))

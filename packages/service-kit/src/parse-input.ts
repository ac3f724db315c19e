import type { z } from 'zod'
import { ApiError } from './errors.ts'

/**
 * Parses one part of a request (path params, query, body) with its schema:
 * the parsed value, or a 400 `{ error: message, issues }`.
 *
 * @example const { id } = parseInput(CoupleParams, c.req.param(), 'bad couple id')
 */
export const parseInput = <schema extends z.ZodType>(
  schema: schema,
  value: unknown,
  message = 'invalid request',
): z.output<schema> => {
  const result = schema.safeParse(value)
  if (!result.success) throw new ApiError(400, message, { issues: result.error.issues })
  return result.data
}

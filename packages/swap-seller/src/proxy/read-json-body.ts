import { ApiError } from '@agents/service-kit'
import type { Context } from 'hono'
import type { z } from 'zod'

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i

export type ReadJsonBodyReturnType<schema extends z.ZodType> =
  | { ok: true; value: z.output<schema> }
  | { ok: false; issues: z.core.$ZodIssue[] }

/**
 * Reads and validates a JSON body with the same wire behaviour as
 * service-kit's `jsonRoute` (415, 400 malformed, 400 with `issues`), but
 * after the grant check: `jsonRoute` validates before any middleware of the
 * handler could run, which would tell unauthenticated callers about the schema.
 */
export const readJsonBody = async <schema extends z.ZodType>(
  c: Context,
  schema: schema,
): Promise<ReadJsonBodyReturnType<schema>> => {
  const mediaType = (c.req.header('content-type') ?? '').split(';')[0]!.trim()
  if (!JSON_MEDIA_TYPE.test(mediaType)) throw new ApiError(415, 'Unsupported Media Type')
  let value: unknown
  try {
    value = JSON.parse(await c.req.text())
  } catch {
    throw new ApiError(400, 'malformed JSON body')
  }
  const result = schema.safeParse(value)
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, issues: result.error.issues }
}

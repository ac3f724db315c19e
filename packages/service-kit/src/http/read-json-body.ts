import type { Context } from 'hono'
import { ApiError } from '../errors.ts'
import { isJsonMediaType } from './is-json-media-type.ts'

/**
 * The JSON body of a route that checks its own fields (the spec names their
 * 400 messages: `key not allowed`, `coupleId required`, ...). Any declared
 * type but JSON is 415 `Unsupported Media Type`, before the body is read,
 * as service-kit's `jsonRoute` answers, so a `text/plain` POST changes
 * nothing; a body without a Content-Type is 415 too. No body and no type
 * reads as `{}`: the beat then runs a fresh cycle and the other routes
 * answer their own 400. Malformed JSON is 400 `malformed JSON body`.
 *
 * @example const body = await readJsonBody(c)
 */
export const readJsonBody = async (c: Context): Promise<unknown> => {
  const contentType = c.req.header('content-type')
  if (contentType !== undefined && !isJsonMediaType(contentType))
    throw new ApiError(415, 'Unsupported Media Type')
  const text = await c.req.text()
  if (!text.trim()) return {}
  if (contentType === undefined) throw new ApiError(415, 'Unsupported Media Type')
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new ApiError(400, 'malformed JSON body')
  }
}

import type { MiddlewareHandler } from 'hono'
import { ApiError } from '../errors.ts'
import { isJsonMediaType } from './is-json-media-type.ts'

/**
 * How deep a JSON body may nest (arrays and objects, `{}` is one level).
 * No route's schema comes near it; a client's 100,000 nested arrays would
 * otherwise reach every recursive walk (zod, our own checks, a logger's
 * serializer) and overflow the stack.
 */
export const MAX_JSON_DEPTH = 64

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d

/**
 * Whether JSON text nests deeper than `maxDepth`, read before it is parsed:
 * one pass over the bytes, no recursion, whatever the input. Brackets inside
 * strings do not count. Works on UTF-8 bytes as on text (every byte of a
 * multi-byte UTF-8 character is above 0x7f, so none is taken for a bracket).
 *
 * @example jsonDepthExceeds('[[[]]]', 2) // true
 */
export const jsonDepthExceeds = (json: Uint8Array | string, maxDepth = MAX_JSON_DEPTH): boolean => {
  const at: (index: number) => number =
    typeof json === 'string' ? (index) => json.charCodeAt(index) : (index) => json[index]!
  let depth = 0
  let inString = false
  for (let index = 0; index < json.length; index++) {
    const code = at(index)
    if (inString) {
      if (code === BACKSLASH) index++
      else if (code === QUOTE) inString = false
    } else if (code === QUOTE) inString = true
    else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      if (++depth > maxDepth) return true
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) depth--
  }
  return false
}

/** The 400 of a body nested too deep (the service's error shape). */
export const tooDeepMessage = (maxDepth: number) => `JSON nested deeper than ${maxDepth} levels`

/**
 * `JSON.parse` of client text, refusing text nested deeper than `maxDepth`
 * with the 400 every service answers for it: for client JSON that does not
 * arrive as a request body (headers, tokens, answers of a client's endpoint).
 *
 * @example const payload = parseBoundedJson(decoded) // throws ApiError(400) when too deep
 */
export const parseBoundedJson = (text: string, maxDepth = MAX_JSON_DEPTH): unknown => {
  if (jsonDepthExceeds(text, maxDepth)) throw new ApiError(400, tooDeepMessage(maxDepth))
  return JSON.parse(text) as unknown
}

/**
 * Refuses, with 400 before any route sees it, a JSON body (or a body that
 * names no type, which some readers parse as JSON) nested deeper than
 * `maxDepth`. The bytes read here stay in Hono's body cache, exact: a route
 * that verifies a signature over the raw body still gets the bytes sent,
 * and `c.req.text()` / `c.req.json()` read the same body without a second
 * read.
 */
export const limitJsonDepth = (maxDepth = MAX_JSON_DEPTH): MiddlewareHandler =>
  async function limitJsonDepth(c, next) {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next()
    const type = c.req.header('content-type')
    if (type !== undefined && !isJsonMediaType(type)) return next()
    const bytes = new Uint8Array(await c.req.arrayBuffer())
    if (jsonDepthExceeds(bytes, maxDepth)) throw new ApiError(400, tooDeepMessage(maxDepth))
    // Decoded once here as `Response.text()` would (UTF-8, a leading BOM dropped).
    // (Hono types its cache as Body's methods; it holds their promises.)
    const cache = c.req.bodyCache as Record<string, Promise<unknown>>
    cache.text ??= Promise.resolve(new TextDecoder().decode(bytes))
    return next()
  }

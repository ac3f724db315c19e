import { z } from '@hono/zod-openapi'

/** The issue message of a string that holds U+0000. */
export const NUL_MESSAGE = 'must not contain U+0000'

/**
 * A string PostgreSQL can store. Neither `text` nor `jsonb` can hold U+0000,
 * so a request carrying one is refused by its schema (400 with the issue)
 * instead of failing in the driver (500), and before any payment is asked.
 * Every string a route reads (body, path, query) starts from it; chain the
 * usual checks after it.
 *
 * @example const Handle = SafeText.trim().min(1).max(64)
 */
export const SafeText = z.string().refine((value) => !value.includes('\u0000'), NUL_MESSAGE)

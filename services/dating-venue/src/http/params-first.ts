import { type AppEnv, parseInput } from '@agents/service-kit'
import type { MiddlewareHandler } from 'hono'
import type { z } from 'zod'

/**
 * Checks a route's path params before its credential: a malformed id is a
 * 400 with the route's message whoever asks, as the spec's rows order them.
 */
export const paramsFirst = (schema: z.ZodType, message: string): MiddlewareHandler<AppEnv> =>
  async function paramsChecked(c, next) {
    parseInput(schema, c.req.param(), message)
    await next()
  }

/** The same for a route's query (checked before its path params when both are listed so). */
export const queryFirst = (schema: z.ZodType, message: string): MiddlewareHandler<AppEnv> =>
  async function queryChecked(c, next) {
    parseInput(schema, c.req.query(), message)
    await next()
  }

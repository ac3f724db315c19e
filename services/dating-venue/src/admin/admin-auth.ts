import { createHash, timingSafeEqual } from 'node:crypto'
import { ApiError } from '@agents/service-kit'
import type { MiddlewareHandler } from 'hono'

const digest = (value: string) => createHash('sha256').update(value).digest()

/**
 * The operator console's guard: `Authorization: Bearer <VENUE_ADMIN_TOKEN>`,
 * compared in constant time (over digests, so lengths leak nothing). Without
 * a configured token the console does not exist (404), so a forgotten
 * setting never leaves it open.
 */
export const requireOperator = (token: string | undefined): MiddlewareHandler =>
  async function operatorOnly(c, next) {
    if (!token) throw new ApiError(404, 'no such room')
    const given = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '')?.[1]
    if (!given) throw new ApiError(401, 'operator credential required')
    if (!timingSafeEqual(digest(given), digest(token)))
      throw new ApiError(403, 'operator credential not recognised')
    await next()
  }

import { createHash, timingSafeEqual } from 'node:crypto'
import { ApiError, bearerToken } from '@agents/service-kit'
import type { Context, MiddlewareHandler } from 'hono'
import { getCookie } from 'hono/cookie'
import type { VenueDeps } from '../deps.ts'
import { OPERATOR_COOKIE, OPERATOR_ERRORS, operatorOfSession } from './operator-session.ts'

export type OperatorGuardDeps = Pick<
  VenueDeps,
  'adminToken' | 'operatorWallets' | 'database' | 'humanChat'
>

const digest = (value: string) => createHash('sha256').update(value).digest()

/** The operator a guarded route acts for: a console wallet, or `token` for the bearer token. */
const operators = new WeakMap<Context, string>()

/** Whether this venue has a console at all: a token or at least one operator wallet. */
export const hasConsole = (deps: Pick<VenueDeps, 'adminToken' | 'operatorWallets'>) =>
  Boolean(deps.adminToken) || deps.operatorWallets.length > 0

/**
 * The guard of every `/admin` route, passed with each route when it is
 * registered (so no registration order can leave a route open). It accepts
 * `Authorization: Bearer <VENUE_ADMIN_TOKEN>` (scripts; compared in
 * constant time over digests) or the console's session cookie (a browser;
 * an operator wallet signed in with SIWE). Without either configured the
 * console does not exist (404). A state-changing request carrying the
 * cookie from another origin is refused (the cookie is SameSite=Strict and
 * every action takes JSON, which no form can send cross-site).
 */
export const requireOperator =
  (deps: OperatorGuardDeps): MiddlewareHandler =>
  async (c, next) => {
    if (!hasConsole(deps)) throw new ApiError(404, 'no such room')
    const given = bearerToken(c.req.header('authorization'))
    if (given) {
      if (!deps.adminToken || !timingSafeEqual(digest(given), digest(deps.adminToken)))
        throw new ApiError(403, OPERATOR_ERRORS.notRecognised)
      operators.set(c, 'token')
      return next()
    }
    const secret = getCookie(c, OPERATOR_COOKIE)
    if (!secret) throw new ApiError(401, OPERATOR_ERRORS.required)
    const origin = c.req.header('origin')
    if (c.req.method !== 'GET' && origin !== undefined && origin !== deps.humanChat.origin())
      throw new ApiError(403, 'cross-site request refused')
    const operator = await operatorOfSession(deps, secret)
    if (!operator) throw new ApiError(401, OPERATOR_ERRORS.required)
    operators.set(c, operator)
    return next()
  }

/** Who a `requireOperator` route acts for, named in the events its actions record. */
export const operatorOf = (c: Context) => {
  const operator = operators.get(c)
  if (!operator) throw new Error('route reads an operator its guard never resolved')
  return operator
}

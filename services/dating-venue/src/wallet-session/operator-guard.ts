import { createHash, timingSafeEqual } from 'node:crypto'
import { ApiError, bearerToken } from '@agents/service-kit'
import type { Context } from 'hono'
import { getCookie } from 'hono/cookie'
import type { VenueDeps } from '../deps.ts'
import type { VenueContext, VenueMiddleware, VenueVariables } from '../venue-env.ts'
import { refuseCrossSite } from './cross-site.ts'
import { OPERATOR_COOKIE, OPERATOR_ERRORS, operatorOfSession } from './operator-session.ts'

export type OperatorGuardDeps = Pick<
  VenueDeps,
  'adminToken' | 'operatorWallets' | 'database' | 'humanChat'
>

const digest = (value: string) => createHash('sha256').update(value).digest()

/** What `requireOperator` sets: the operator a guarded route acts for, a console wallet or `token`. */
export type OperatorVariables = Pick<VenueVariables, 'operator'>

/** Whether this venue has a console at all: a token or at least one operator wallet. */
export const hasConsole = (deps: Pick<VenueDeps, 'adminToken' | 'operatorWallets'>) =>
  Boolean(deps.adminToken) || deps.operatorWallets.length > 0

/**
 * The operator a request speaks for, or undefined when it carries neither
 * way in: `Authorization: Bearer <VENUE_ADMIN_TOKEN>` (scripts; compared in
 * constant time over digests) answers `token`, the console's session cookie
 * of a wallet still on the allow-list answers the wallet. Another bearer is
 * not the operator (undefined: it may be a credential of another kind). A
 * state-changing request carrying the cookie from another origin is 403
 * (the cookie is SameSite=Strict too, and every action takes JSON, which no
 * form can send cross-site).
 */
export const operatorOfRequest = async (
  deps: OperatorGuardDeps,
  c: Context,
): Promise<string | undefined> => {
  const given = bearerToken(c.req.header('authorization'))
  if (given)
    return deps.adminToken && timingSafeEqual(digest(given), digest(deps.adminToken))
      ? 'token'
      : undefined
  const secret = getCookie(c, OPERATOR_COOKIE)
  if (!secret) return undefined
  refuseCrossSite(c, deps.humanChat.origin())
  return operatorOfSession(deps, secret)
}

/**
 * The guard of every `/admin` route, passed with each route when it is
 * registered (so no registration order can leave a route open): the token
 * or a console session (`operatorOfRequest`). Without either configured the
 * console does not exist (404); another bearer is 403; nothing, or a
 * session that ended, 401.
 */
export const requireOperator =
  (deps: OperatorGuardDeps): VenueMiddleware =>
  async (c, next) => {
    if (!hasConsole(deps)) throw new ApiError(404, 'no such room')
    const operator = await operatorOfRequest(deps, c)
    if (!operator)
      throw bearerToken(c.req.header('authorization'))
        ? new ApiError(403, OPERATOR_ERRORS.notRecognised)
        : new ApiError(401, OPERATOR_ERRORS.required)
    c.set('operator', operator)
    return next()
  }

/** Who a `requireOperator` route acts for, named in the events its actions record. */
export const operatorOf = (c: VenueContext) => {
  const operator = c.get('operator')
  if (!operator) throw new Error('route reads an operator its guard never resolved')
  return operator
}

import { ApiError, errorBody, type Logger } from '@agents/service-kit'
import type { MiddlewareHandler } from 'hono'
import { GrantError, HubKeysUnavailableError } from '../errors.ts'
import { type Grant, type VerifyGrantParameters, verifyGrant } from '../grant/verify-grant.ts'

/** What `requireGrant` sets on the context for the route behind it. */
export type GrantVariables = { grant: Grant }

export type RequireGrantOptions = VerifyGrantParameters & { logger?: Logger }

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i

/**
 * Hono middleware: the route behind it runs only with a verified grant in
 * `c.var.grant`. No bearer: 401 `grant required`; a bearer that is not a
 * grant for this endpoint: 401 `grant rejected` with its `reason` (RFC 6750
 * challenges in `WWW-Authenticate`); hub keys unreachable: 503.
 *
 * @example app.post('/v1/embeddings', requireGrant({ hubJwksUrl, endpoint }), handler)
 */
export const requireGrant = ({
  logger,
  ...options
}: RequireGrantOptions): MiddlewareHandler<{ Variables: GrantVariables }> =>
  async function checkGrant(c, next) {
    const bearer = BEARER.exec(c.req.header('authorization') ?? '')?.[1]
    if (bearer === undefined)
      return c.json(errorBody('grant required'), 401, { 'WWW-Authenticate': 'Bearer' })
    let grant: Grant
    try {
      grant = await verifyGrant(bearer, options)
    } catch (error) {
      if (error instanceof GrantError)
        return c.json(
          errorBody('grant rejected', { reason: error.reason, detail: error.shortMessage }),
          401,
          { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
        )
      if (error instanceof HubKeysUnavailableError) {
        logger?.error({ details: error.details }, 'hub keys unavailable')
        throw new ApiError(503, 'hub keys unavailable')
      }
      throw error
    }
    c.set('grant', grant)
    await next()
  }

import { type AppEnv, bearerToken, credentialKey, matchedRoute } from '@agents/service-kit'
import type { Context } from 'hono'
import { getCookie } from 'hono/cookie'
import { VENUE_CREDENTIAL_HEADER } from '../credentials/actor-middleware.ts'
import { OPERATOR_COOKIE } from '../wallet-session/operator-session.ts'
import { CHAT_COOKIE } from '../wallet-session/wallet-session.ts'
import { type Presented, routeLimitOf } from './route-limits.ts'

const presented = (c: Context, kind: Presented): string | undefined => {
  switch (kind) {
    case 'bearer': {
      const secret =
        bearerToken(c.req.header('authorization')) ?? c.req.header(VENUE_CREDENTIAL_HEADER)
      return secret ? credentialKey('bearer', secret) : undefined
    }
    case 'chat': {
      const secret = getCookie(c, CHAT_COOKIE)
      return secret ? credentialKey('chat', secret) : undefined
    }
    case 'operator': {
      const secret = getCookie(c, OPERATOR_COOKIE)
      return secret ? credentialKey('operator', secret) : undefined
    }
    default:
      throw new Error(`unknown credential kind: ${kind satisfies never}`)
  }
}

/**
 * Whom a request counts for, past its address: the first thing it presents
 * that its route checks (route-limits.ts), as a hash (`credentialKey`), so
 * a credential, a chat session or an operator has its own buckets. On a
 * route that checks nothing, nothing presented counts (a made-up bearer on
 * a public read buys no bucket); a made-up one on a route that checks it
 * is refused (401/403) and counts against the address's `signin`.
 */
export const venueClientKey = (c: Context<AppEnv>): string | undefined => {
  for (const kind of routeLimitOf(matchedRoute(c)).accepts) {
    const key = presented(c, kind)
    if (key !== undefined) return key
  }
  return undefined
}

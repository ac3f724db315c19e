import {
  bearerToken,
  type CreateRequestLimitsParameters,
  type CredentialReader,
  credentialKey,
} from '@agents/service-kit'
import { getCookie } from 'hono/cookie'
import { VENUE_CREDENTIAL_HEADER } from './credentials/actor-middleware.ts'
import { LIMIT, type VenueLimitName } from './limits/limit-defaults.ts'
import { OPERATOR_COOKIE } from './wallet-session/operator-session.ts'
import { CHAT_COOKIE } from './wallet-session/wallet-session.ts'

/** `Authorization: Bearer`, or `X-Venue-Credential` beside an MPP payment: a venue credential, a login token or the operator's token. */
const bearer: CredentialReader = (c) => {
  const secret = bearerToken(c.req.header('authorization')) ?? c.req.header(VENUE_CREDENTIAL_HEADER)
  return secret ? credentialKey('bearer', secret) : undefined
}

const cookie =
  (name: string, kind: string): CredentialReader =>
  (c) => {
    const secret = getCookie(c, name)
    return secret ? credentialKey(kind, secret) : undefined
  }

/**
 * How the venue counts requests, for `createRequestLimits`: each route
 * counts against the class it declares (`limit`), per the first credential
 * its `security` names that the request presents (as a hash), so a
 * credential, a chat session or an operator has its own buckets; else per
 * address group. A made-up credential on a route that checks it is refused
 * (401/403) and counts against the address's `signin`.
 */
export const VENUE_COUNTING = {
  // Not declared (unknown rooms, the kit's probes and documents): GET reads,
  // anything else a write.
  unlisted: { read: LIMIT.read, write: LIMIT.write },
  credentials: {
    credential: bearer,
    login: bearer,
    operator: bearer,
    chatSession: cookie(CHAT_COOKIE, 'chat'),
    operatorSession: cookie(OPERATOR_COOKIE, 'operator'),
  },
  credentialFailures: 'signin',
} as const satisfies Pick<
  CreateRequestLimitsParameters<VenueLimitName>,
  'unlisted' | 'credentials' | 'credentialFailures'
>

import { type AppEnv, credentialKey } from '@agents/service-kit'
import type { Context } from 'hono'

const MATCH_PATH =
  /^\/v1\/matches\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:\/pay)?$/i

/**
 * What a request presents that the rail knows a client by: the match id of
 * `GET /v1/matches/:id` and `POST /v1/matches/:id/pay` (the capability that
 * reads the grant), kept as a hash. Such requests count per match, so buyers
 * behind one address do not share the challenge limit; a made-up id is
 * answered 404 and counts against the address's `unknown-match` limit.
 * Everything else counts per address (nothing else is presented: offers and
 * intents are posted without a credential).
 */
export const matchCredentialOf = (c: Context<AppEnv>): string | undefined => {
  const id = MATCH_PATH.exec(c.req.path)?.[1]
  return id === undefined ? undefined : credentialKey('match', id.toLowerCase())
}

/**
 * The rail's request limits per client and their defaults (`points/seconds`),
 * each a `RATE_LIMIT_<NAME>` setting. Chosen so that an agent working
 * normally never meets one; the README says why each is what it is.
 */
export const RAIL_LIMIT_DEFAULTS = {
  /** GETs, documents, MCP messages other than tool calls, and the read tools. */
  read: '600/60',
  /** Posting offers and intents: nobody presents a credential to do it. */
  'anonymous-write': '60/60',
  /** Cancelling an offer: a write signed by payTo (the signature is checked by the route). */
  write: '60/60',
  /** The paid routes: a match's 402 and its paid retries, and the sample 402 of POST /v1/pay. */
  challenge: '60/60',
  /** Match ids named by an address that the rail does not know (404): a made-up id buys no bucket. */
  'unknown-match': '20/60',
} as const

export type RailLimitName = keyof typeof RAIL_LIMIT_DEFAULTS

import type { LimitDeclaration } from '@agents/service-kit'

/**
 * The venue's request limits per client and their defaults
 * (`RATE_LIMIT_<NAME>=points/seconds`). Chosen so that an agent or a human
 * using the venue normally never meets one; the README ("Request limits")
 * says why each is what it is.
 */
export const VENUE_LIMIT_DEFAULTS = {
  /** GETs, documents, unknown routes read, MCP messages and the (read-only) tools. */
  read: '600/60',
  /** Writes by a client presenting a credential, a chat session or the operator's way in. */
  write: '120/60',
  /** Writes presenting none (reports, agent registration and verification, 401 probes). */
  'anonymous-write': '30/60',
  /** Requests that call a model, the moderation check or the identity provider. */
  outbound: '20/60',
  /** The paid routes: the 402 and the paid retry. */
  challenge: '30/60',
  /** Sign-in (SIWE nonces and sign-ins, the claim's login token), and refused credentials. */
  signin: '30/60',
} as const

export type VenueLimitName = keyof typeof VENUE_LIMIT_DEFAULTS

/**
 * The classes a route declares (`limit`, beside its OpenAPI entry): a write
 * presenting none of the credentials its `security` names counts as an
 * `anonymous-write`.
 */
export const LIMIT = {
  read: 'read',
  write: { name: 'write', anonymous: 'anonymous-write' },
  outbound: 'outbound',
  challenge: 'challenge',
  signin: 'signin',
} as const satisfies Record<string, LimitDeclaration<VenueLimitName>>

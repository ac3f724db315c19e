// Login reasons travel on the wire (spec: 401 `auth verification failed` with
// reason), so they are phrases, not codes; keep them unchanged.

/** Why a login token (JWT or SIWE) was not accepted. */
export const LOGIN_FAILURES = {
  /** Not a JWT or a SIWE token, undecodable, oversized, a required field missing, or (SIWE) a line EIP-4361 has not. */
  malformed: 'malformed',
  /** No trusted issuer has this `iss` (or SIWE is off, or nothing is configured). */
  unknownIssuer: 'unknown issuer',
  /** The header's `alg` is not one the issuer is pinned to. */
  algorithmNotAllowed: 'algorithm not allowed',
  /** The signature does not verify (forged, tampered, or signed by another key). */
  badSignature: 'bad signature',
  /** No key in the issuer's JWKS has the token's `kid`. */
  unknownKey: 'unknown key',
  /** `exp` passed, or (SIWE) the expiration time passed or `issuedAt` is too old. */
  expired: 'expired',
  /** `nbf` or (SIWE) `notBefore`/`issuedAt` lies in the future. */
  notYetValid: 'not yet valid',
  wrongAudience: 'wrong audience',
  /** A claim other than iss/aud/exp/nbf failed (missing `sub`, wrong `typ`, Dynamic scope). */
  invalidClaims: 'invalid claims',
  /** SIWE: the message names another domain than VENUE_LOGIN_SIWE_DOMAIN. */
  wrongDomain: 'wrong domain',
  /** SIWE: the nonce differs from the one the caller expected. */
  wrongNonce: 'wrong nonce',
  /** SIWE: the nonce was not issued by this venue, expired, or was used already. */
  unknownNonce: 'unknown or used nonce',
  /** SIWE: the message's URI is not on the venue's origin. */
  wrongUri: 'wrong uri',
  /** SIWE: the message names a chain the venue does not (`SIWE_CHAIN_IDS`). */
  wrongChain: 'wrong chain',
  /** SIWE: the message's `Version` is not `1`. */
  unsupportedVersion: 'unsupported version',
  /** SIWE: the address is mixed-case with a wrong EIP-55 checksum. */
  badAddress: 'bad address',
  /** The issuer's JWKS could not be fetched (a fault on their side, not the token's). */
  keysUnavailable: 'keys unavailable',
} as const
export type LoginFailure = (typeof LOGIN_FAILURES)[keyof typeof LOGIN_FAILURES]

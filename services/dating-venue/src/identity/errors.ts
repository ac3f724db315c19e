// Stable reasons of the identity layer. Login and webhook reasons travel on the
// wire (spec: 401 `auth verification failed` with reason, 400 `webhook rejected`
// with reason), so they are phrases, not codes; keep them unchanged.

/** Why a login token (JWT or SIWE) was not accepted. */
export const LOGIN_FAILURES = {
  /** Not a JWT or a SIWE token, undecodable, oversized, or a required field is missing. */
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
  /** The issuer's JWKS could not be fetched (a fault on their side, not the token's). */
  keysUnavailable: 'keys unavailable',
} as const
export type LoginFailure = (typeof LOGIN_FAILURES)[keyof typeof LOGIN_FAILURES]

/** Why an identity-provider webhook was rejected (spec: 400 `webhook rejected`). */
export const WEBHOOK_FAILURES = {
  missingSignature: 'missing signature',
  missingTimestamp: 'missing timestamp',
  /** Not Unix seconds, or more than the tolerance away from now (either way). */
  staleTimestamp: 'stale timestamp',
  badSignature: 'bad signature',
  /** Signature fine, but the body is not UTF-8 JSON of the expected shape. */
  malformedBody: 'malformed body',
} as const
export type WebhookFailure = (typeof WEBHOOK_FAILURES)[keyof typeof WEBHOOK_FAILURES]

/** Why creating an identity-provider session failed; never shown to users verbatim. */
export const IDP_FAILURES = [
  /** No complete answer within the time limit. */
  'timeout',
  /** Connection refused or reset, DNS, TLS, or another transport error. */
  'network',
  /** A status other than 200/201 (redirects are not followed: the API key must not leak). */
  'http_error',
  /** A 2xx answer without `session_id` and an http(s) `url`, or not JSON. */
  'bad_response',
] as const
export type IdpFailure = (typeof IDP_FAILURES)[number]

// Stable reasons of the identity layer (the login reasons are in
// ../login/login-failures.ts). Webhook reasons travel on the wire (spec: 400
// `webhook rejected` with reason), so they are phrases, not codes; keep them unchanged.

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

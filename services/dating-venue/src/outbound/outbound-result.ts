/** Stable reasons an outbound call did not produce a usable JSON answer. */
export const OUTBOUND_FAILURES = [
  /** Not a URL, credentials in it, or not https (for a host not allowed). */
  'invalid_url',
  /** The URL or a resolved address is not a public unicast address (service-kit's `isNonPublicAddress`). */
  'forbidden_address',
  /** The name did not resolve. */
  'dns',
  /** No complete answer within the time limit (DNS, connect, TLS, response and body together). */
  'timeout',
  /** The answer body is over the size cap. */
  'too_large',
  /** A 3xx answer; redirects are never followed. */
  'redirect',
  /** A status other than 2xx or 3xx. */
  'http_error',
  /** The body is empty, not UTF-8, or not JSON. */
  'not_json',
  /** Connection refused or reset, TLS failure, or another transport error. */
  'network',
] as const
export type OutboundFailure = (typeof OUTBOUND_FAILURES)[number]

export type OutboundSuccess = { ok: true; status: number; json: unknown }
export type OutboundError = {
  ok: false
  reason: OutboundFailure
  /** For logs and operators; may quote the remote's status, never its body. */
  detail: string
  /** Present when the remote answered (`redirect`, `http_error`, `too_large`, `not_json`). */
  status?: number
}
export type OutboundResult = OutboundSuccess | OutboundError

export const outboundError = (
  reason: OutboundFailure,
  detail: string,
  status?: number,
): OutboundError =>
  status === undefined ? { ok: false, reason, detail } : { ok: false, reason, detail, status }

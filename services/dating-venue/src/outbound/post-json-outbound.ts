import { checkPublicUrl } from '@agents/service-kit'
import {
  type OutboundError,
  type OutboundFailure,
  type OutboundResult,
  outboundError,
} from './outbound-result.ts'
import { type LookupAll, lookupAll, resolvePublicAddress } from './resolve-public-address.ts'
import { sendPinnedRequest } from './send-pinned-request.ts'

export type PostJsonOutboundOptions = {
  /** Hosts (exact URL host names) that may use http and non-public addresses: tests and local setups only. */
  allowHosts?: readonly string[]
  /** Limit for the whole call: DNS, connect, TLS, answer and body. */
  timeoutMs?: number
  /** Largest answer body read; beyond it the call is aborted with `too_large`. */
  maxResponseBytes?: number
  /** Extra request headers (e.g. signatures); cannot replace content-type, content-length or host. */
  headers?: Readonly<Record<string, string>>
  /** Name resolver; injectable for tests. Default: `dns.lookup` with `all: true`. */
  lookup?: LookupAll
  /** Extra trusted CA certificates (PEM), for private PKI and tests. */
  ca?: string | Buffer | readonly (string | Buffer)[]
}

export const USER_AGENT = 'dating-venue'

// checkPublicUrl's reasons that mean "points somewhere forbidden" rather than "malformed".
const forbiddenReasons = new Set(['loopback host', 'private, loopback or link-local address'])

/**
 * POSTs `body` as JSON to a URL a user gave us (an agent's callback) and
 * parses the JSON answer. https only, never to a non-public address (the
 * URL, then every resolved address, are checked and the socket is pinned
 * to the checked address so DNS rebinding cannot swap it), no redirects,
 * a time limit and a size cap. Expected failures come back as
 * `{ ok: false, reason }`; it throws only on faults of the caller (a body
 * JSON cannot serialize, an invalid header value).
 *
 * @example
 * const answer = await postJsonOutbound(callbackUrl, { challenge: nonce })
 * if (answer.ok) console.log(answer.json)
 */
export const postJsonOutbound = async (
  url: string,
  body: unknown,
  {
    allowHosts = [],
    timeoutMs = 5000,
    maxResponseBytes = 64 * 1024,
    headers = {},
    lookup = lookupAll,
    ca,
  }: PostJsonOutboundOptions = {},
): Promise<OutboundResult> => {
  const checked = checkPublicUrl(url, { allowHosts })
  if (!checked.ok) {
    const reason: OutboundFailure = forbiddenReasons.has(checked.reason)
      ? 'forbidden_address'
      : 'invalid_url'
    return outboundError(reason, checked.reason)
  }
  const payload = Buffer.from(JSON.stringify(body) ?? 'null')
  const requestHeaders = {
    'user-agent': USER_AGENT,
    accept: 'application/json',
    ...lowerCaseKeys(headers),
    'content-type': 'application/json',
    'content-length': String(payload.length),
    host: checked.url.host,
  }

  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), timeoutMs)
  try {
    const timedOut = new Promise<OutboundError>((resolve) =>
      controller.signal.addEventListener('abort', () =>
        resolve(outboundError('timeout', `no answer within ${timeoutMs} ms`)),
      ),
    )
    // dns.lookup cannot be cancelled: stop waiting for it at the deadline.
    const target = await Promise.race([
      resolvePublicAddress(checked.url, { allowHosts, lookup }),
      timedOut,
    ])
    if (!target.ok) return target
    const { ok: _, ...address } = target
    const sent = await sendPinnedRequest({
      url: checked.url,
      target: address,
      headers: requestHeaders,
      payload,
      maxResponseBytes,
      signal: controller.signal,
      ca,
    })
    return sent.ok || sent.reason !== 'timeout'
      ? sent
      : outboundError('timeout', `no complete answer within ${timeoutMs} ms`)
  } finally {
    clearTimeout(timer)
  }
}

const lowerCaseKeys = (headers: Readonly<Record<string, string>>) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]))

import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { LookupFunction } from 'node:net'
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '@agents/service-kit'
import { type OutboundResult, outboundError } from './outbound-result.ts'
import type { ResolvedAddress } from './resolve-public-address.ts'

export type SendPinnedRequestParameters = {
  url: URL
  /** The checked address: the socket goes here, whatever DNS says now. */
  target: ResolvedAddress
  headers: Record<string, string>
  payload: Buffer
  maxResponseBytes: number
  /** Aborting it ends the call with `timeout`. */
  signal: AbortSignal
  /** Extra trusted CA certificates (PEM), for private PKI and tests. */
  ca?: string | Buffer | readonly (string | Buffer)[]
}

/**
 * POSTs `payload` to `url` over a fresh connection to `target`. The Host
 * header and TLS SNI/certificate check still use the URL's host name.
 * Resolves with a result; never rejects for network-side outcomes.
 */
export const sendPinnedRequest = ({
  url,
  target,
  headers,
  payload,
  maxResponseBytes,
  signal,
  ca,
}: SendPinnedRequestParameters): Promise<OutboundResult> =>
  new Promise((resolve) => {
    let settled = false
    const settle = (result: OutboundResult) => {
      if (settled) return
      settled = true
      signal.removeEventListener('abort', onAbort)
      request.destroy()
      resolve(result)
    }
    const onAbort = () => settle(outboundError('timeout', 'no complete answer in time'))

    const send = url.protocol === 'https:' ? httpsRequest : httpRequest
    const request = send(url, {
      method: 'POST',
      headers,
      // No pooling: a kept-alive socket could belong to another address.
      agent: false,
      lookup: pinnedLookup(target),
      ...(ca === undefined ? {} : { ca: ca as string | Buffer | (string | Buffer)[] }),
    })
    request.on('response', (response) => readAnswer(response, maxResponseBytes, settle))
    request.on('error', (error) => settle(outboundError('network', error.message)))
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    request.end(payload)
  })

// net.connect asks for all addresses when autoSelectFamily is on (Node 20's default).
const pinnedLookup =
  ({ address, family }: ResolvedAddress): LookupFunction =>
  (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }])
    else callback(null, address, family)
  }

const readAnswer = (
  response: IncomingMessage,
  maxResponseBytes: number,
  settle: (result: OutboundResult) => void,
) => {
  const status = response.statusCode ?? 0
  if (status >= 300 && status < 400)
    return settle(outboundError('redirect', `status ${status}; redirects are not followed`, status))
  if (status < 200 || status >= 300)
    return settle(outboundError('http_error', `status ${status}`, status))
  const tooLarge = () =>
    settle(outboundError('too_large', `answer over ${maxResponseBytes} bytes`, status))
  if (Number(response.headers['content-length']) > maxResponseBytes) return tooLarge()

  const chunks: Buffer[] = []
  let size = 0
  response.on('data', (chunk: Buffer) => {
    size += chunk.length
    if (size > maxResponseBytes) tooLarge()
    else chunks.push(chunk)
  })
  response.on('end', () => settle(parseJsonAnswer(Buffer.concat(chunks), status)))
  response.on('error', (error) => settle(outboundError('network', error.message)))
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

const parseJsonAnswer = (body: Buffer, status: number): OutboundResult => {
  // An agent's endpoint is a client: its answer is bounded as a request body is.
  if (jsonDepthExceeds(body))
    return outboundError(
      'not_json',
      `status ${status}; body nested deeper than ${MAX_JSON_DEPTH} levels`,
      status,
    )
  try {
    // Drop `__proto__` keys so a later Object.assign cannot change a prototype.
    const json: unknown = JSON.parse(utf8.decode(body), (key, value) =>
      key === '__proto__' ? undefined : value,
    )
    return { ok: true, status, json }
  } catch {
    return outboundError(
      'not_json',
      `status ${status}; body of ${body.length} bytes is not JSON`,
      status,
    )
  }
}

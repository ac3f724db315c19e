import { request } from 'undici'

/** A facilitator call, as a per-call credential names it (CDP signs its method, host and path). */
export type FacilitatorCall = { method: 'GET' | 'POST'; url: URL }

/** How to reach an x402 facilitator over HTTP. */
export type FacilitatorSettings = {
  url: string
  /** Sent with every call (e.g. an API key header). */
  headers?: Record<string, string>
  /** Headers made afresh for each call (Coinbase's facilitator: a JWT per request). */
  authenticate?: (call: FacilitatorCall) => Promise<Record<string, string>>
  timeoutMs?: number
}

/**
 * A facilitator endpoint under the configured URL, its path kept
 * (`https://api.cdp.coinbase.com/platform/v2/x402` + `verify`).
 */
export const facilitatorEndpoint = (url: string, endpoint: 'verify' | 'settle' | 'supported') =>
  new URL(endpoint, url.endsWith('/') ? url : `${url}/`)

/** The static headers and, when the facilitator wants one, this call's own credential. */
export const facilitatorHeaders = async (
  { headers = {}, authenticate }: FacilitatorSettings,
  call: FacilitatorCall,
): Promise<Record<string, string>> =>
  authenticate ? { ...headers, ...(await authenticate(call)) } : headers

export type FacilitatorVerify = { isValid: boolean; invalidReason?: string; payer?: string }
export type FacilitatorSettle = {
  success: boolean
  errorReason?: string
  transaction?: string
  network?: string
  payer?: string
}

/**
 * `reached: false` only when the request provably never arrived (the
 * connection was refused): then nothing can have been settled.
 */
type CallResult<value> =
  | { ok: true; value: value }
  | { ok: false; detail: string; reached: boolean }

const call = async <value>(
  settings: FacilitatorSettings,
  path: '/verify' | '/settle',
  body: unknown,
): Promise<CallResult<value>> => {
  const url = facilitatorEndpoint(settings.url, path === '/verify' ? 'verify' : 'settle')
  let headers: Record<string, string>
  try {
    headers = await facilitatorHeaders(settings, { method: 'POST', url })
  } catch (error) {
    // Nothing went out: a settle that could not be signed moved no money.
    return {
      ok: false,
      detail: `facilitator ${path} not called: its credential could not be made (${(error as Error).message})`,
      reached: false,
    }
  }
  try {
    // undici's `request`, not `fetch`: the same pooled keep-alive connections
    // without WHATWG streams and Request objects, half the CPU a call (0.92 ->
    // 0.46 ms), spent on the paid request's event loop (bench/README.md,
    // "The facilitator client").
    const answer = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body, (_key, item) =>
        typeof item === 'bigint' ? item.toString() : item,
      ),
      signal: AbortSignal.timeout(settings.timeoutMs ?? 10_000),
    })
    const text = await answer.body.text()
    const status = answer.statusCode
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return {
        ok: false,
        detail: `facilitator ${path} answered ${status} without JSON`,
        reached: true,
      }
    }
    // A facilitator answers 400 with a verdict for invalid payloads; anything
    // else that is not 2xx is the facilitator failing, not the payment.
    if ((status < 200 || status > 299) && status !== 400) {
      return { ok: false, detail: `facilitator ${path} answered ${status}`, reached: true }
    }
    if (typeof parsed !== 'object' || parsed === null)
      return { ok: false, detail: `facilitator ${path} answered no object`, reached: true }
    return { ok: true, value: parsed as value }
  } catch (error) {
    // undici puts a socket error's code on the error; an abort is a DOMException whose
    // `code` is a number, so only a string code counts.
    const failure = error as Error & { code?: unknown; cause?: { code?: unknown } }
    const code = [failure.code, failure.cause?.code].find((item) => typeof item === 'string') as
      | string
      | undefined
    return {
      ok: false,
      detail: `facilitator ${path} unreachable: ${code ?? (error as Error).name}`,
      reached: code !== 'ECONNREFUSED',
    }
  }
}

/** `POST /verify`: is this payment valid for these requirements? */
export const facilitatorVerify = (settings: FacilitatorSettings, body: unknown) =>
  call<FacilitatorVerify>(settings, '/verify', body)

/** `POST /settle`: move the funds on-chain. */
export const facilitatorSettle = (settings: FacilitatorSettings, body: unknown) =>
  call<FacilitatorSettle>(settings, '/settle', body)

import { z } from 'zod'
import type { IdpFailure } from './errors.ts'
import { type IdpApiVersion, idpSessionPath } from './idp-session-path.ts'

export type CreateIdpClientParameters = {
  /** The provider's API root, e.g. https://verification.didit.me (operator config). */
  baseUrl: string
  apiKey: string
  workflowId: string
  /**
   * Sent as `callback`: in Didit, where the human's *browser* is sent after
   * the check (with `verificationSessionId` and `status` in the query). The
   * venue's page, never the webhook: that URL is set at the provider.
   */
  callbackUrl: string
  /** Limit for the whole call, answer body included. */
  timeoutMs?: number
  fetch?: typeof fetch
  /** `v3` (Didit's current `POST /v3/session/`) or `v2`; same fields either way. */
  apiVersion?: IdpApiVersion
}

export type CreateIdpSessionParameters = {
  /** Our reference for the human (the owner id); comes back in every webhook. */
  vendorData: string
  metadata?: Record<string, unknown>
}

export type CreateIdpSessionReturnType =
  | { ok: true; sessionId: string; url: string }
  | {
      ok: false
      reason: IdpFailure
      /** For logs and operators; quotes the status, never the body or the key. */
      detail: string
      /** Present when the provider answered. */
      status?: number
    }

export type IdpClient = {
  createSession: (parameters: CreateIdpSessionParameters) => Promise<CreateIdpSessionReturnType>
}

const HttpUrl = z.url().refine((value) => /^https?:$/.test(new URL(value).protocol))

// Didit answers with more fields (session_number, session_token, ...); we need two.
// The url is shown to a browser, so it must be http(s), never `javascript:`.
const SessionAnswer = z.object({ session_id: z.string().min(1).max(200), url: HttpUrl })

const MAX_ANSWER_BYTES = 64 * 1024

/**
 * A client for a Didit-compatible identity provider: `createSession` starts
 * the 18+ ID and liveness check for one human and returns the URL to send
 * them to. Remote faults (timeout, network, non-2xx, a malformed answer)
 * come back as `{ ok: false, reason }`; it does not throw for them.
 * Redirects are not followed, so the API key never travels elsewhere.
 *
 * @example
 * const idp = createIdpClient({ baseUrl, apiKey, workflowId, callbackUrl: `${venue}/identity/done` })
 * const session = await idp.createSession({ vendorData: String(ownerId) })
 * if (session.ok) redirectTo(session.url)
 */
export const createIdpClient = ({
  baseUrl,
  apiKey,
  workflowId,
  callbackUrl,
  timeoutMs = 10_000,
  fetch: fetchImpl = globalThis.fetch,
  apiVersion = 'v3',
}: CreateIdpClientParameters): IdpClient => {
  const endpoint = `${baseUrl.replace(/\/+$/, '')}${idpSessionPath(apiVersion)}`

  const createSession = async ({
    vendorData,
    metadata,
  }: CreateIdpSessionParameters): Promise<CreateIdpSessionReturnType> => {
    let response: Response
    let text: string
    try {
      // One signal for the request and the body read: the limit covers both.
      const signal = AbortSignal.timeout(timeoutMs)
      response = await fetchImpl(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'x-api-key': apiKey,
        },
        body: JSON.stringify({
          workflow_id: workflowId,
          vendor_data: vendorData,
          callback: callbackUrl,
          ...(metadata ? { metadata } : {}),
        }),
        redirect: 'manual',
        signal,
      })
      text = await response.text()
    } catch (error) {
      const name = (error as { name?: string } | undefined)?.name
      return name === 'TimeoutError' || name === 'AbortError'
        ? { ok: false, reason: 'timeout', detail: `no answer within ${timeoutMs} ms` }
        : { ok: false, reason: 'network', detail: (error as Error)?.message ?? 'request failed' }
    }
    const { status } = response
    if (status !== 200 && status !== 201)
      return {
        ok: false,
        reason: 'http_error',
        detail: `identity provider answered ${status}`,
        status,
      }
    if (Buffer.byteLength(text) > MAX_ANSWER_BYTES)
      return { ok: false, reason: 'bad_response', detail: 'answer too large', status }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      return { ok: false, reason: 'bad_response', detail: 'answer is not JSON', status }
    }
    const answer = SessionAnswer.safeParse(json)
    if (!answer.success)
      return { ok: false, reason: 'bad_response', detail: 'answer lacks session_id or url', status }
    return { ok: true, sessionId: answer.data.session_id, url: answer.data.url }
  }

  return { createSession }
}

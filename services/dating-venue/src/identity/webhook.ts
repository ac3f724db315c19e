import { timingSafeEqual } from 'node:crypto'
import { SafeText } from '@agents/service-kit'
import { z } from 'zod'
import { WEBHOOK_FAILURES, type WebhookFailure } from './errors.ts'
import { extractAge } from './extract-age.ts'
import type { IdpEvent } from './types.ts'
import { signWebhookBody } from './webhook-signature.ts'

export type VerifyWebhookParameters = {
  /** The request body exactly as received, before any JSON parsing. */
  rawBody: Uint8Array
  /** The `X-Signature` header. */
  signature: string | null | undefined
  /** The `X-Timestamp` header (Unix seconds). */
  timestamp: string | null | undefined
  secret: string
  /** Milliseconds since the epoch. */
  now?: number
  toleranceSeconds?: number
}

export type VerifyWebhookReturnType =
  | { ok: true; event: IdpEvent }
  | { ok: false; reason: WebhookFailure }

// Only `status.updated` needs a session and a status; other event types
// (entity-level ones) may lack them and are still acknowledged by the route.
export const WebhookBody = z
  .object({
    webhook_type: SafeText.min(1),
    session_id: SafeText.optional(),
    status: SafeText.optional(),
    vendor_data: z.unknown().optional(),
    decision: z.unknown().optional(),
  })
  .refine((body) => body.webhook_type !== 'status.updated' || (body.session_id && body.status))

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/
const UNIX_SECONDS = /^\d{1,12}$/

const fail = (reason: WebhookFailure): VerifyWebhookReturnType => ({ ok: false, reason })

/**
 * Authenticates an identity-provider webhook (spec, Authentication 4):
 * `X-Signature` must be the hex HMAC-SHA256 of the exact raw body with the
 * webhook secret (compared in constant time) and `X-Timestamp` within
 * `toleranceSeconds` of now, either way. Didit signs only the body, so the
 * timestamp is checked on its own. The body is parsed only after the
 * signature passes. Throws only for an empty secret (a configuration fault).
 *
 * @example
 * const result = verifyWebhook({
 *   rawBody: new Uint8Array(await c.req.arrayBuffer()),
 *   signature: c.req.header('x-signature'),
 *   timestamp: c.req.header('x-timestamp'),
 *   secret: config.IDP_WEBHOOK_SECRET,
 * })
 * if (!result.ok) throw new ApiError(400, 'webhook rejected', { reason: result.reason })
 */
export const verifyWebhook = ({
  rawBody,
  signature,
  timestamp,
  secret,
  now = Date.now(),
  toleranceSeconds = 300,
}: VerifyWebhookParameters): VerifyWebhookReturnType => {
  if (!secret) throw new Error('verifyWebhook: the webhook secret is empty')
  if (!signature) return fail(WEBHOOK_FAILURES.missingSignature)
  if (!timestamp) return fail(WEBHOOK_FAILURES.missingTimestamp)
  // A timestamp that is not Unix seconds cannot be shown to be fresh.
  if (!UNIX_SECONDS.test(timestamp)) return fail(WEBHOOK_FAILURES.staleTimestamp)
  if (Math.abs(Math.floor(now / 1000) - Number(timestamp)) > toleranceSeconds)
    return fail(WEBHOOK_FAILURES.staleTimestamp)

  const expected = Buffer.from(signWebhookBody(rawBody, secret), 'hex')
  // Anything but 64 hex digits cannot match; timingSafeEqual needs equal lengths.
  const given = HEX_SHA256.test(signature) ? Buffer.from(signature, 'hex') : undefined
  if (!given || !timingSafeEqual(given, expected)) return fail(WEBHOOK_FAILURES.badSignature)

  let json: unknown
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(rawBody))
  } catch {
    return fail(WEBHOOK_FAILURES.malformedBody)
  }
  const body = WebhookBody.safeParse(json)
  if (!body.success) return fail(WEBHOOK_FAILURES.malformedBody)
  const { webhook_type, session_id, status, vendor_data, decision } = body.data
  return {
    ok: true,
    event: {
      webhookType: webhook_type,
      sessionId: session_id ?? '',
      status: status ?? '',
      ...(typeof vendor_data === 'string' ? { vendorData: vendor_data } : {}),
      ...(decision !== undefined && decision !== null ? { decision } : {}),
      age: extractAge(decision, now),
    },
  }
}

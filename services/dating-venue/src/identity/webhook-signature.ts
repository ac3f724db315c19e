import { createHmac } from 'node:crypto'

/** Hex HMAC-SHA256 of the raw body, keyed with the webhook secret (Didit's `X-Signature`). */
export const SIGNATURE_HEADER = 'x-signature'
/** Unix seconds when the provider sent the webhook; not part of the signed bytes. */
export const TIMESTAMP_HEADER = 'x-timestamp'

/**
 * Signs a webhook body the way Didit signs `X-Signature`: lowercase hex of
 * HMAC-SHA256 over the exact body bytes, keyed with the UTF-8 secret. The
 * timestamp is not signed; receivers check it separately.
 *
 * @example headers[SIGNATURE_HEADER] = signWebhookBody(body, secret)
 */
export const signWebhookBody = (rawBody: Uint8Array | string, secret: string): string =>
  createHmac('sha256', secret).update(rawBody).digest('hex')

import { jsonDepthExceeds } from '@agents/service-kit'

/** Header names of both rails, written once. */
export const PAYMENT_REQUIRED_HEADER = 'PAYMENT-REQUIRED'
export const PAYMENT_SIGNATURE_HEADER = 'PAYMENT-SIGNATURE'
export const PAYMENT_RESPONSE_HEADER = 'PAYMENT-RESPONSE'
export const X_PAYMENT_HEADER = 'X-PAYMENT'
export const X_PAYMENT_RESPONSE_HEADER = 'X-PAYMENT-RESPONSE'
export const WWW_AUTHENTICATE_HEADER = 'WWW-Authenticate'
export const PAYMENT_RECEIPT_HEADER = 'Payment-Receipt'

/** base64 of JSON, as x402 carries its headers. */
export const encodeBase64Json = (value: unknown): string =>
  Buffer.from(JSON.stringify(value)).toString('base64')

/**
 * The inverse of `encodeBase64Json`; undefined for anything that is not
 * base64 JSON, or JSON nested deeper than a request body may be (the
 * payload goes on to x402's own checks, which walk it recursively).
 */
export const decodeBase64Json = (header: string): unknown => {
  if (header.length > 16_384 || !/^[A-Za-z0-9+/=_-]+$/.test(header)) return undefined
  const text = Buffer.from(header, 'base64').toString('utf8')
  if (jsonDepthExceeds(text)) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

import type { PaymentReason } from './errors.ts'
import type { FacilitatorSettings } from './facilitator-client.ts'
import {
  encodeBase64Json,
  PAYMENT_REQUIRED_HEADER,
  PAYMENT_RESPONSE_HEADER,
  PAYMENT_SIGNATURE_HEADER,
  WWW_AUTHENTICATE_HEADER,
  X_PAYMENT_HEADER,
  X_PAYMENT_RESPONSE_HEADER,
} from './headers.ts'
import type { ReceiptStore } from './receipt-store.ts'
import type { PaymentReceipt, Price, Resource, X402Rail } from './types.ts'
import { buildRequirementsV1, buildRequirementsV2 } from './x402/requirements.ts'
import { verifyX402 } from './x402/verify-x402.ts'

/** MPP behind an interface: `createMppAdapter` implements it with mppx. */
export type MppAdapter = {
  /** The `WWW-Authenticate: Payment ...` value for this price. */
  challenge: (request: Request, price: Price, resource: Resource) => Promise<string>
  verify: (
    request: Request,
    price: Price,
    resource: Resource,
  ) => Promise<
    | { ok: true; receipt: PaymentReceipt; headers: Record<string, string> }
    | { ok: false; reason: PaymentReason; detail: string }
  >
}

export type PaymentsDeps = {
  x402?: { rails: readonly X402Rail[]; facilitator: FacilitatorSettings }
  mpp?: MppAdapter
  store: ReceiptStore
}

export type ChargeParameters = {
  price: Price
  resource: Resource
  /** The 402 body: the venue's legacy v1 challenge, or `{ error }` only. */
  body?: 'legacy-v1' | 'minimal'
}

export type ChargeResult =
  | { paid: false; response: Response; reason?: PaymentReason; detail?: string }
  | { paid: true; receipt: PaymentReceipt; withReceipt: (response: Response) => Response }

/**
 * Decides one request: with no payment, the 402 challenge offering every
 * configured rail; with a payment, verification and settlement through the
 * rail it came on, and then either a receipt or a 402 `payment not verified`
 * with a reason (and the challenge again, so the client can retry).
 */
export const charge = async (
  { x402, mpp, store }: PaymentsDeps,
  request: Request,
  { price, resource, body = 'minimal' }: ChargeParameters,
): Promise<ChargeResult> => {
  const offered = x402 ? buildRequirementsV2(x402.rails, price) : []
  const offeredV1 = buildRequirementsV1(offered, resource)

  const challenge = async (status: { reason: PaymentReason; detail: string } | undefined) => {
    const headers = new Headers({ 'content-type': 'application/json' })
    if (offered.length > 0) {
      headers.set(
        PAYMENT_REQUIRED_HEADER,
        encodeBase64Json({
          x402Version: 2,
          error: status ? 'payment not verified' : 'payment required',
          // v2 wants the resource's full URL; the legacy v1 body keeps the path.
          resource: {
            url: new URL(resource.url, request.url).href,
            description: resource.description,
            mimeType: resource.mimeType ?? 'application/json',
          },
          accepts: offered,
        }),
      )
    }
    if (mpp) headers.set(WWW_AUTHENTICATE_HEADER, await mpp.challenge(request, price, resource))
    const payload = status
      ? { error: 'payment not verified', reason: status.reason, detail: status.detail }
      : body === 'legacy-v1'
        ? { x402Version: 1, error: 'payment required', accepts: offeredV1 }
        : { error: 'payment required' }
    return {
      paid: false as const,
      response: new Response(JSON.stringify(payload), { status: 402, headers }),
      ...status,
    }
  }

  const signature = request.headers.get(PAYMENT_SIGNATURE_HEADER)
  const legacy = request.headers.get(X_PAYMENT_HEADER)
  const authorization = request.headers.get('authorization')

  if ((signature || legacy) && x402) {
    const version = signature ? 2 : 1
    const result = await verifyX402(
      { facilitator: x402.facilitator, store },
      { header: (signature ?? legacy)!, version, offered, offeredV1 },
    )
    if (!result.ok) return challenge(result)
    const { receipt } = result
    const header = encodeBase64Json({
      success: true,
      transaction: receipt.transaction,
      network: receipt.network,
      payer: receipt.payer,
    })
    return {
      paid: true,
      receipt,
      withReceipt: (response) =>
        withHeaders(response, {
          [version === 2 ? PAYMENT_RESPONSE_HEADER : X_PAYMENT_RESPONSE_HEADER]: header,
        }),
    }
  }
  if (authorization?.startsWith('Payment ') && mpp) {
    const result = await mpp.verify(request, price, resource)
    if (!result.ok) return challenge(result)
    return {
      paid: true,
      receipt: result.receipt,
      withReceipt: (response) => withHeaders(response, result.headers),
    }
  }
  return challenge(undefined)
}

/**
 * True when the request carries a payment credential of any rail. A route
 * that must guard a payment in flight (the swap rail's per-match lease)
 * asks this before `charge`; a bare request only ever gets the 402.
 */
export const carriesPayment = (request: Request): boolean =>
  request.headers.has(PAYMENT_SIGNATURE_HEADER) ||
  request.headers.has(X_PAYMENT_HEADER) ||
  (request.headers.get('authorization') ?? '').startsWith('Payment ')

const withHeaders = (response: Response, headers: Record<string, string>) => {
  const copy = new Response(response.body, response)
  for (const [name, value] of Object.entries(headers)) copy.headers.set(name, value)
  return copy
}

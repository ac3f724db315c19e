import type { PaymentReason } from './errors.ts'
import type { FacilitatorSettings } from './facilitator-client.ts'
import {
  encodeBase64Json,
  PAYMENT_REQUIRED_HEADER,
  PAYMENT_SIGNATURE_HEADER,
  WWW_AUTHENTICATE_HEADER,
  X_PAYMENT_HEADER,
} from './headers.ts'
import type { MppAdapter, MppModes } from './mpp/create-mpp-adapter.ts'
import { checkedResourceUrl } from './resource-url.ts'
import type { Price, Resource, X402Rail } from './types.ts'
import {
  buildRequirementsV1,
  buildRequirementsV2,
  type RequirementV1,
  type RequirementV2,
} from './x402/requirements.ts'

export type ChallengeDeps = {
  x402?: { rails: readonly X402Rail[]; facilitator: FacilitatorSettings } | undefined
  mpp?: MppAdapter | undefined
}

export type ChallengeParameters = {
  price: Price
  resource: Resource
  /** The 402 body: the venue's legacy v1 challenge, or `{ error }` only. */
  body?: 'legacy-v1' | 'minimal'
  /** How MPP may pay this route; the adapter's default (push) when absent. */
  mppModes?: MppModes
}

export type PaymentChallenge = {
  offered: RequirementV2[]
  offeredV1: RequirementV1[]
  /** The 402: every configured rail; with a refusal, `payment not verified` and its reason. */
  respond: (refusal?: { reason: PaymentReason; detail: string }) => Promise<Response>
}

/**
 * What this request costs on every configured rail, and its 402:
 * `PAYMENT-REQUIRED` (x402 v2), `WWW-Authenticate: Payment` (MPP), and a
 * body (the legacy v1 challenge or `{ error }`). `resource.url` must be
 * absolute (built on the service's base URL): nothing of the 402 is taken
 * from the request's URL or `Host`; a relative one throws `ResourceUrlError`.
 */
export const paymentChallenge = (
  { x402, mpp }: ChallengeDeps,
  request: Request,
  { price, resource, body = 'minimal', mppModes }: ChallengeParameters,
): PaymentChallenge => {
  const url = checkedResourceUrl(resource.url)
  const offered = x402 ? buildRequirementsV2(x402.rails, price) : []
  const offeredV1 = buildRequirementsV1(offered, resource)
  const respond = async (refusal?: { reason: PaymentReason; detail: string }) => {
    const headers = new Headers({ 'content-type': 'application/json' })
    if (offered.length > 0) {
      headers.set(
        PAYMENT_REQUIRED_HEADER,
        encodeBase64Json({
          x402Version: 2,
          error: refusal ? 'payment not verified' : 'payment required',
          // v2 wants the resource's full URL; the legacy v1 body keeps the path.
          resource: {
            url: url.href,
            description: resource.description,
            mimeType: resource.mimeType ?? 'application/json',
          },
          accepts: offered,
        }),
      )
    }
    if (mpp)
      headers.set(WWW_AUTHENTICATE_HEADER, await mpp.challenge(request, price, resource, mppModes))
    const payload = refusal
      ? { error: 'payment not verified', reason: refusal.reason, detail: refusal.detail }
      : body === 'legacy-v1'
        ? { x402Version: 1, error: 'payment required', accepts: offeredV1 }
        : { error: 'payment required' }
    return new Response(JSON.stringify(payload), { status: 402, headers })
  }
  return { offered, offeredV1, respond }
}

/**
 * True when the request carries a payment credential of any rail. A route
 * that takes no payment (a discovery probe) refuses such a request outright.
 */
export const carriesPayment = (request: Request): boolean =>
  request.headers.has(PAYMENT_SIGNATURE_HEADER) ||
  request.headers.has(X_PAYMENT_HEADER) ||
  (request.headers.get('authorization') ?? '').startsWith('Payment ')

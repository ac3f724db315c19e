import { encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload, PaymentRequirementsV1 } from '@x402/core/types'
import { ExactEvmSchemeV1 } from '@x402/evm/exact/v1/client'
import type { PrivateKeyAccount } from 'viem/accounts'

/**
 * One entry of a legacy v1 `accepts` list; `outputSchema` may be left out. `network` is widened
 * to `string` because v1 uses plain names (`base`), which @x402/core's CAIP-2 `Network` excludes.
 */
export type V1Requirements = Omit<PaymentRequirementsV1, 'outputSchema' | 'network'> & {
  network: string
  outputSchema?: Record<string, unknown>
}

/**
 * Signs a legacy x402 v1 `exact` payment and returns the `X-PAYMENT` header value (base64 JSON
 * `{ x402Version: 1, scheme, network, payload: { signature, authorization } }`). v1 names
 * networks, e.g. `base` for chain 8453.
 *
 * @example
 * const header = await signV1Payment(payer, accepts[0])
 * await fetch(url, { headers: { 'X-PAYMENT': header } })
 */
export const signV1Payment = async (
  account: PrivateKeyAccount,
  requirements: V1Requirements,
): Promise<string> => {
  const scheme = new ExactEvmSchemeV1(account)
  const payload = await scheme.createPaymentPayload(1, {
    outputSchema: {},
    ...requirements,
  } as unknown as Parameters<ExactEvmSchemeV1['createPaymentPayload']>[1])
  // The v1 header is the same base64 JSON encoding as v2's; only the payload shape differs.
  return encodePaymentSignatureHeader(payload as unknown as PaymentPayload)
}

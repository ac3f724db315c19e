import type { PaymentChallenge } from './challenge.ts'
import { PAYMENT_SIGNATURE_HEADER, X_PAYMENT_HEADER } from './headers.ts'
import type { PaymentsDeps } from './payments-deps.ts'
import type { SaleTerms } from './sale-product.ts'
import { readX402Payment } from './x402/x402-attempt.ts'

/**
 * The request's payment, read against the challenge's requirements: x402
 * (`PAYMENT-SIGNATURE`, or the legacy `X-PAYMENT`) or MPP (`Authorization:
 * Payment`); undefined when it carries none a configured rail takes.
 */
export const readPayment = (
  deps: PaymentsDeps,
  request: Request,
  { price, mppModes }: Pick<SaleTerms, 'price' | 'mppModes'>,
  challenge: PaymentChallenge,
) => {
  const signature = request.headers.get(PAYMENT_SIGNATURE_HEADER)
  const legacy = request.headers.get(X_PAYMENT_HEADER)
  if ((signature || legacy) && deps.x402)
    return readX402Payment({
      header: (signature ?? legacy)!,
      version: signature ? 2 : 1,
      offered: challenge.offered,
      offeredV1: challenge.offeredV1,
    })
  if (request.headers.get('authorization')?.startsWith('Payment ') && deps.mpp)
    return deps.mpp.read(request, price, mppModes)
  return undefined
}

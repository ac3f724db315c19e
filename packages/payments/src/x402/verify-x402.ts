import { PaymentReason } from '../errors.ts'
import {
  type FacilitatorSettings,
  facilitatorSettle,
  facilitatorVerify,
} from '../facilitator-client.ts'
import { decodeBase64Json } from '../headers.ts'
import type { ReceiptStore } from '../receipt-store.ts'
import type { PaymentReceipt } from '../types.ts'
import { checkPayment, PaymentPayloadV1, PaymentPayloadV2 } from './check-payment.ts'
import type { RequirementV1, RequirementV2 } from './requirements.ts'
import { fromV1NetworkName, toV1NetworkName } from './v1-networks.ts'

export type VerifyX402Deps = { facilitator: FacilitatorSettings; store: ReceiptStore }

export type VerifyX402Result =
  | { ok: true; receipt: PaymentReceipt }
  | { ok: false; reason: PaymentReason; detail: string }

const fail = (reason: PaymentReason, detail: string): VerifyX402Result => ({
  ok: false,
  reason,
  detail,
})

/**
 * Verifies and settles an x402 payment header (v2 `PAYMENT-SIGNATURE` or
 * legacy v1 `X-PAYMENT`) against what this request offered. Fails closed:
 * any mismatch, facilitator error or timeout is "not verified". A reference
 * is claimed before settling, so two racing requests cannot both be served
 * by one payment; it is given back when nothing moved on-chain.
 */
export const verifyX402 = async (
  { facilitator, store }: VerifyX402Deps,
  {
    header,
    version,
    offered,
    offeredV1,
  }: { header: string; version: 1 | 2; offered: RequirementV2[]; offeredV1: RequirementV1[] },
): Promise<VerifyX402Result> => {
  const decoded = decodeBase64Json(header)
  let requirement: RequirementV2 | undefined
  let body: { x402Version: number; paymentPayload: unknown; paymentRequirements: unknown }
  let check: ReturnType<typeof checkPayment>

  if (version === 2) {
    const parsed = PaymentPayloadV2.safeParse(decoded)
    if (!parsed.success)
      return fail(PaymentReason.malformed, 'PAYMENT-SIGNATURE is not a v2 payment payload')
    const { accepted, payload } = parsed.data
    requirement = offered.find((candidate) => candidate.network === accepted.network)
    if (!requirement)
      return fail(PaymentReason.networkMismatch, `network ${accepted.network} is not offered`)
    check = checkPayment(requirement, accepted, payload)
    // The facilitator judges the payment against OUR requirements, never the client's copy.
    body = { x402Version: 2, paymentPayload: parsed.data, paymentRequirements: requirement }
  } else {
    const parsed = PaymentPayloadV1.safeParse(decoded)
    if (!parsed.success)
      return fail(PaymentReason.malformed, 'X-PAYMENT is not a v1 payment payload')
    const network = fromV1NetworkName(parsed.data.network)
    const requirementV1 = offeredV1.find((candidate) => candidate.network === network)
    requirement = offered.find((candidate) => candidate.network === network)
    if (!requirementV1 || !requirement)
      return fail(PaymentReason.networkMismatch, `network ${parsed.data.network} is not offered`)
    check = checkPayment(requirement, { scheme: parsed.data.scheme, network }, parsed.data.payload)
    const v1Network = toV1NetworkName(network)
    body = {
      x402Version: 1,
      paymentPayload: { ...parsed.data, network: v1Network },
      paymentRequirements: { ...requirementV1, network: v1Network },
    }
  }
  if (!check.ok) return check

  if (!(await store.claim(check.reference)))
    return fail(PaymentReason.alreadyUsed, 'this payment was already used')
  let settled = false
  try {
    const verified = await facilitatorVerify(facilitator, body)
    if (!verified.ok) return fail(PaymentReason.facilitatorUnavailable, verified.detail)
    if (verified.value.isValid !== true) {
      return fail(
        PaymentReason.verifyRejected,
        verified.value.invalidReason ?? 'the facilitator rejected the payment',
      )
    }
    const settlement = await facilitatorSettle(facilitator, body)
    if (!settlement.ok) return fail(PaymentReason.facilitatorUnavailable, settlement.detail)
    if (settlement.value.success !== true || !settlement.value.transaction) {
      return fail(
        PaymentReason.settleFailed,
        settlement.value.errorReason ?? 'the facilitator could not settle',
      )
    }
    settled = true
    const receipt: PaymentReceipt = {
      rail: 'x402',
      version,
      network: requirement.network,
      payer: settlement.value.payer ?? verified.value.payer ?? check.payer ?? '',
      amount: requirement.amount,
      transaction: settlement.value.transaction,
      reference: check.reference,
    }
    await store.complete(check.reference, receipt)
    return { ok: true, receipt }
  } finally {
    // Nothing moved: the payer may present the same authorization again.
    if (!settled) await store.release(check.reference)
  }
}

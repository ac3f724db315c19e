import type { Address, Hex } from 'viem'
import type { PaymentProof, X402Proof } from '../chain/settlement-reader.ts'
import { PaymentReason } from '../errors.ts'
import {
  type FacilitatorSettings,
  facilitatorSettle,
  facilitatorVerify,
} from '../facilitator-client.ts'
import { decodeBase64Json } from '../headers.ts'
import type { SettleOutcome } from '../settle-outcome.ts'
import { checkPayment, PaymentPayloadV1, PaymentPayloadV2 } from './check-payment.ts'
import type { RequirementV1, RequirementV2 } from './requirements.ts'
import { fromV1NetworkName, toV1NetworkName } from './v1-networks.ts'

/** An x402 payment that passed our own checks: what the ledger records and how to settle it. */
export type X402Attempt = {
  rail: 'x402'
  version: 1 | 2
  reference: string
  payer: string
  requirement: RequirementV2
  proof: PaymentProof
  /** The facilitator's `{ x402Version, paymentPayload, paymentRequirements }`. */
  facilitatorBody: unknown
}

type Refusal = { ok: false; reason: PaymentReason; detail: string }
const refuse = (reason: PaymentReason, detail: string): Refusal => ({ ok: false, reason, detail })

/**
 * Reads an x402 payment header (v2 `PAYMENT-SIGNATURE` or legacy v1
 * `X-PAYMENT`) and checks it against what this request offered, without
 * any network call: nothing is claimed or settled here.
 */
export const readX402Payment = ({
  header,
  version,
  offered,
  offeredV1,
}: {
  header: string
  version: 1 | 2
  offered: RequirementV2[]
  offeredV1: RequirementV1[]
}): { ok: true; attempt: X402Attempt } | Refusal => {
  const decoded = decodeBase64Json(header)
  let requirement: RequirementV2 | undefined
  let facilitatorBody: unknown
  let check: ReturnType<typeof checkPayment>
  let payload: Record<string, unknown>

  if (version === 2) {
    const parsed = PaymentPayloadV2.safeParse(decoded)
    if (!parsed.success)
      return refuse(PaymentReason.malformed, 'PAYMENT-SIGNATURE is not a v2 payment payload')
    const { accepted } = parsed.data
    payload = parsed.data.payload
    requirement = offered.find((candidate) => candidate.network === accepted.network)
    if (!requirement)
      return refuse(PaymentReason.networkMismatch, `network ${accepted.network} is not offered`)
    check = checkPayment(requirement, accepted, payload)
    // The facilitator judges the payment against OUR requirements, never the client's copy.
    facilitatorBody = {
      x402Version: 2,
      paymentPayload: parsed.data,
      paymentRequirements: requirement,
    }
  } else {
    const parsed = PaymentPayloadV1.safeParse(decoded)
    if (!parsed.success)
      return refuse(PaymentReason.malformed, 'X-PAYMENT is not a v1 payment payload')
    payload = parsed.data.payload
    const network = fromV1NetworkName(parsed.data.network)
    const requirementV1 = offeredV1.find((candidate) => candidate.network === network)
    requirement = offered.find((candidate) => candidate.network === network)
    if (!requirementV1 || !requirement)
      return refuse(PaymentReason.networkMismatch, `network ${parsed.data.network} is not offered`)
    check = checkPayment(requirement, { scheme: parsed.data.scheme, network }, payload)
    const v1Network = toV1NetworkName(network)
    facilitatorBody = {
      x402Version: 1,
      paymentPayload: { ...parsed.data, network: v1Network },
      paymentRequirements: { ...requirementV1, network: v1Network },
    }
  }
  if (!check.ok) return check
  const authorization = payload.authorization as
    | { from: Address; nonce: Hex; validBefore: string }
    | undefined
  const proof: PaymentProof =
    requirement.network.startsWith('eip155:') && authorization
      ? ({
          rail: 'x402',
          network: requirement.network,
          asset: requirement.asset as Address,
          from: authorization.from,
          nonce: authorization.nonce,
          validBefore: authorization.validBefore,
          version,
        } satisfies X402Proof)
      : { rail: 'x402', network: requirement.network, opaque: true }
  return {
    ok: true,
    attempt: {
      rail: 'x402',
      version,
      reference: check.reference,
      payer: check.payer ?? '',
      requirement,
      proof,
      facilitatorBody,
    },
  }
}

/** Asks the facilitator whether the payment is valid; nothing moves. */
export const verifyX402 = async (
  facilitator: FacilitatorSettings,
  attempt: X402Attempt,
): Promise<{ ok: true } | Refusal> => {
  const verified = await facilitatorVerify(facilitator, attempt.facilitatorBody)
  if (!verified.ok) return refuse(PaymentReason.facilitatorUnavailable, verified.detail)
  if (verified.value.isValid !== true)
    return refuse(
      PaymentReason.verifyRejected,
      verified.value.invalidReason ?? 'the facilitator rejected the payment',
    )
  return { ok: true }
}

/**
 * Settles through the facilitator. A lost or garbled answer is `unknown`,
 * never "nothing moved": the transfer may have happened. Only a refused
 * connection proves the request never arrived.
 */
export const settleX402 = async (
  facilitator: FacilitatorSettings,
  attempt: X402Attempt,
): Promise<SettleOutcome> => {
  const settlement = await facilitatorSettle(facilitator, attempt.facilitatorBody)
  if (!settlement.ok) {
    return settlement.reached
      ? { kind: 'unknown', detail: settlement.detail }
      : { kind: 'refused', reason: PaymentReason.facilitatorUnavailable, detail: settlement.detail }
  }
  if (settlement.value.success !== true || !settlement.value.transaction)
    return {
      kind: 'refused',
      reason: PaymentReason.settleFailed,
      detail: settlement.value.errorReason ?? 'the facilitator could not settle',
    }
  return {
    kind: 'settled',
    transaction: settlement.value.transaction,
    payer: settlement.value.payer ?? attempt.payer,
  }
}

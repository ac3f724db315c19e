import { createHash } from 'node:crypto'
import { z } from 'zod'
import { PaymentReason } from '../errors.ts'
import type { RequirementV2 } from './requirements.ts'
import { associatedTokenAccount, readSolanaTransfer } from './solana-transaction.ts'

const Authorization = z.object({
  from: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  to: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  value: z.string().regex(/^[0-9]{1,78}$/),
  validAfter: z.string().regex(/^[0-9]{1,20}$/),
  validBefore: z.string().regex(/^[0-9]{1,20}$/),
  nonce: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
})

export const PaymentPayloadV2 = z.object({
  x402Version: z.literal(2),
  accepted: z
    .object({
      scheme: z.string(),
      network: z.string(),
      amount: z.string(),
      asset: z.string(),
      payTo: z.string(),
    })
    .passthrough(),
  payload: z.record(z.string(), z.unknown()),
  resource: z.unknown().optional(),
  extensions: z.unknown().optional(),
})
export const PaymentPayloadV1 = z.object({
  x402Version: z.literal(1),
  scheme: z.string(),
  network: z.string(),
  payload: z.record(z.string(), z.unknown()),
})

export type CheckedPayment =
  | { ok: true; reference: string; payer?: string }
  | { ok: false; reason: PaymentReason; detail: string }

const same = (left: string, right: string) => left.toLowerCase() === right.toLowerCase()
// An authorization that expires within this margin cannot settle safely.
const EXPIRY_MARGIN_SECONDS = 6n

/**
 * The checks we make ourselves before any facilitator sees the payment:
 * what was signed must be exactly what this request asks (network, scheme,
 * asset, payee, amount, time window). The facilitator checks the signature
 * and balance; this keeps a facilitator bug from selling our goods cheaply.
 */
export const checkPayment = (
  offered: RequirementV2,
  signed: {
    scheme: string
    network: string
    amount?: string
    asset?: string
    payTo?: string
    extra?: unknown
  },
  payload: Record<string, unknown>,
  nowSeconds = BigInt(Math.floor(Date.now() / 1000)),
): CheckedPayment => {
  const fail = (reason: PaymentReason, detail: string): CheckedPayment => ({
    ok: false,
    reason,
    detail,
  })
  if (signed.scheme !== offered.scheme)
    return fail(PaymentReason.schemeMismatch, `scheme ${signed.scheme} is not offered`)
  if (signed.network !== offered.network)
    return fail(PaymentReason.networkMismatch, `network ${signed.network} is not offered`)
  if (signed.asset !== undefined && !same(signed.asset, offered.asset))
    return fail(PaymentReason.assetMismatch, 'asset differs from the offer')
  if (signed.payTo !== undefined && !same(signed.payTo, offered.payTo))
    return fail(PaymentReason.payeeMismatch, 'payee differs from the offer')
  if (signed.amount !== undefined && signed.amount !== offered.amount)
    return fail(PaymentReason.amountMismatch, `amount ${signed.amount} is not ${offered.amount}`)

  if (!offered.network.startsWith('eip155:')) {
    // Solana: the payload is a transaction signed by the payer, its fee payer
    // the facilitator's key. What it moves is read from its bytes; the
    // facilitator checks the signatures and balances. Its bytes are the reference.
    const transaction = typeof payload.transaction === 'string' ? payload.transaction : undefined
    if (!transaction) return fail(PaymentReason.malformed, 'payload.transaction missing')
    const feePayer = offered.extra.feePayer
    const signedFeePayer = (signed.extra as { feePayer?: unknown } | undefined)?.feePayer
    if (signedFeePayer !== undefined && signedFeePayer !== feePayer)
      return fail(PaymentReason.malformed, 'accepted.extra.feePayer differs from the offer')
    const transfer = readSolanaTransfer(transaction)
    if (typeof transfer === 'string') return fail(PaymentReason.malformed, transfer)
    if (transfer.feePayer !== feePayer)
      return fail(PaymentReason.malformed, "the transaction's fee payer is not the facilitator's")
    if (transfer.mint !== offered.asset)
      return fail(PaymentReason.assetMismatch, 'the transaction moves another token')
    if (transfer.amount.toString() !== offered.amount)
      return fail(
        PaymentReason.amountMismatch,
        `the transaction moves ${transfer.amount}, not ${offered.amount}`,
      )
    let destination: string
    try {
      destination = associatedTokenAccount(offered.payTo, offered.asset, transfer.tokenProgram)
    } catch {
      return fail(PaymentReason.payeeMismatch, 'the offered payee has no token account address')
    }
    if (transfer.destination !== destination)
      return fail(
        PaymentReason.payeeMismatch,
        "the transaction pays another account than the payee's",
      )
    if (transfer.authority === feePayer)
      return fail(PaymentReason.malformed, "the transaction spends the fee payer's tokens")
    return {
      ok: true,
      payer: transfer.authority,
      reference: `x402:${offered.network}:${createHash('sha256').update(transaction).digest('hex')}`,
    }
  }

  const authorization = Authorization.safeParse(payload.authorization)
  if (!authorization.success || typeof payload.signature !== 'string') {
    return fail(PaymentReason.malformed, 'payload needs an EIP-3009 authorization and signature')
  }
  const { from, to, value, validAfter, validBefore, nonce } = authorization.data
  if (!same(to, offered.payTo))
    return fail(PaymentReason.payeeMismatch, 'authorization pays someone else')
  if (value !== offered.amount)
    return fail(PaymentReason.amountMismatch, `authorization moves ${value}, not ${offered.amount}`)
  if (BigInt(validBefore) <= nowSeconds + EXPIRY_MARGIN_SECONDS)
    return fail(PaymentReason.expired, 'authorization expired')
  if (BigInt(validAfter) > nowSeconds)
    return fail(PaymentReason.notYetValid, 'authorization not yet valid')
  // EIP-3009 nonces are unique per (token, from): that triple is the reference.
  return {
    ok: true,
    payer: from,
    reference: `x402:${offered.network}:${offered.asset.toLowerCase()}:${from.toLowerCase()}:${nonce.toLowerCase()}`,
  }
}

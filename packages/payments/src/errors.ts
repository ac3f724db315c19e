/**
 * Why a payment was not accepted: stable snake_case codes, sent as `reason`
 * beside `error: "payment not verified"`.
 */
export const PaymentReason = {
  malformed: 'malformed_payment',
  unsupportedVersion: 'unsupported_x402_version',
  schemeMismatch: 'scheme_mismatch',
  networkMismatch: 'network_mismatch',
  assetMismatch: 'asset_mismatch',
  payeeMismatch: 'payee_mismatch',
  amountMismatch: 'amount_mismatch',
  expired: 'authorization_expired',
  notYetValid: 'authorization_not_yet_valid',
  alreadyUsed: 'payment_already_used',
  facilitatorUnavailable: 'facilitator_unavailable',
  verifyRejected: 'verification_failed',
  settleFailed: 'settlement_failed',
  mppRejected: 'mpp_credential_rejected',
} as const
export type PaymentReason = (typeof PaymentReason)[keyof typeof PaymentReason]

/** Thrown at start-up when payment settings are unusable (e.g. devnet settings in production). */
export class PaymentsConfigError extends Error {
  override readonly name = 'PaymentsConfigError'
  readonly problems: string[]
  constructor(problems: string[]) {
    super(`invalid payment settings:\n  ${problems.join('\n  ')}`)
    this.problems = problems
  }
}

/** Thrown at start-up when a service's paid items contradict each other (two products for one kind). */
export class PaidItemsError extends Error {
  override readonly name = 'PaidItemsError'
  readonly problems: string[]
  constructor(problems: string[]) {
    super(`invalid paid items:\n  ${problems.join('\n  ')}`)
    this.problems = problems
  }
}

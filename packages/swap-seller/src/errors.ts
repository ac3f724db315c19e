/**
 * Why a grant was refused: stable snake_case codes, sent as `reason` beside
 * `error: "grant rejected"`.
 */
export const GrantReason = {
  malformed: 'malformed',
  badSignature: 'bad_signature',
  expired: 'expired',
  wrongAudience: 'wrong_audience',
  wrongIssuer: 'wrong_issuer',
  missingClaims: 'missing_claims',
} as const
export type GrantReason = (typeof GrantReason)[keyof typeof GrantReason]

export type BaseErrorParameters = { details?: string; cause?: unknown }

/** The one base error of this package: a short message, optional details and cause. */
export class BaseError extends Error {
  override name = 'SwapSellerError'
  readonly shortMessage: string
  readonly details: string | undefined

  constructor(shortMessage: string, { details, cause }: BaseErrorParameters = {}) {
    super(details ? `${shortMessage}\n\nDetails: ${details}` : shortMessage, { cause })
    this.shortMessage = shortMessage
    this.details = details
  }
}

/** A bearer that is not a usable grant for this seller; `reason` says why. */
export class GrantError extends BaseError {
  override name = 'GrantError'
  readonly reason: GrantReason

  constructor(reason: GrantReason, shortMessage: string, parameters: BaseErrorParameters = {}) {
    super(shortMessage, parameters)
    this.reason = reason
  }
}

/**
 * The hub's keys could not be fetched or read. Not the buyer's fault: the
 * grant may be fine, so the proxy answers 503 rather than "grant rejected".
 */
export class HubKeysUnavailableError extends BaseError {
  override name = 'HubKeysUnavailableError'
}

import { errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose'
import { z } from 'zod'
import { TOKENS_PER_MTOK } from '../constants.ts'
import { GrantError, GrantReason, HubKeysUnavailableError } from '../errors.ts'
import { getHubJwks } from './get-hub-jwks.ts'

/** The claims this package relies on beyond what jose checks itself. */
export const GrantClaims = z.object({
  iss: z.string().min(1),
  sub: z.string().min(1),
  exp: z.number(),
  jti: z.string().min(1),
  model: z.string().min(1),
  // Bounded so `mtok * 1_000_000` stays an exact integer.
  mtok: z
    .number()
    .int()
    .positive()
    .max(Math.floor(Number.MAX_SAFE_INTEGER / TOKENS_PER_MTOK)),
})
export type GrantClaims = z.infer<typeof GrantClaims>

/** A verified grant: what the seller may serve, to which match, until when. */
export type Grant = {
  /** The match id (`sub`); metering is per match, never per grant (`jti`). */
  matchId: string
  model: string
  /** Millions of tokens the match bought. */
  mtok: number
  expiresAt: Date
  issuer: string
}

/** Where the hub's public keys come from: its JWKS URL, or a key getter the caller already has. */
export type GrantKeySource = { hubJwksUrl: string | URL } | { jwks: JWTVerifyGetKey }

export type VerifyGrantParameters = GrantKeySource & {
  /** This seller's endpoint exactly as offered to the hub: the grant's `aud`. */
  endpoint: string
  /** The hub's public base URL; when set, `iss` must equal it. */
  issuer?: string
  /** Allowed clock skew between hub and seller for `exp`. */
  clockToleranceSeconds?: number
}

export type VerifyGrantReturnType = Grant
export type VerifyGrantErrorType = GrantError | HubKeysUnavailableError

const REQUIRED_CLAIMS = ['iss', 'sub', 'aud', 'iat', 'exp', 'jti', 'model', 'mtok']

/**
 * Verifies a grant the hub issued (ES256 JWS, `typ: JWT`) for this seller's
 * endpoint and returns what it buys. Throws `GrantError` with a stable
 * `reason` when the bearer is not a usable grant, `HubKeysUnavailableError`
 * when the hub's keys cannot be read.
 *
 * @example
 * const grant = await verifyGrant(bearer, {
 *   hubJwksUrl: 'https://hub.example/.well-known/jwks.json',
 *   endpoint: 'https://seller.example/v1',
 * })
 * @see ../../README.md#grant-format
 */
export const verifyGrant = async (
  bearer: string,
  parameters: VerifyGrantParameters,
): Promise<VerifyGrantReturnType> => {
  const { endpoint, issuer, clockToleranceSeconds = 30 } = parameters
  const keys = 'jwks' in parameters ? parameters.jwks : getHubJwks(parameters.hubJwksUrl)
  const token = bearer.trim()
  if (token === '') throw new GrantError(GrantReason.malformed, 'grant is empty')

  let payload: JWTPayload
  try {
    ;({ payload } = await jwtVerify(token, keys, {
      algorithms: ['ES256'],
      typ: 'JWT',
      audience: audiencesOf(endpoint),
      requiredClaims: REQUIRED_CLAIMS,
      clockTolerance: clockToleranceSeconds,
      ...(issuer === undefined ? {} : { issuer }),
    }))
  } catch (error) {
    throw toVerifyGrantError(error, endpoint)
  }

  const claims = GrantClaims.safeParse(payload)
  if (!claims.success) {
    const issue = claims.error.issues[0]
    throw new GrantError(
      GrantReason.missingClaims,
      `grant claim "${issue?.path.join('.')}" is invalid: ${issue?.message}`,
    )
  }
  const { sub, model, mtok, exp, iss } = claims.data
  return { matchId: sub, model, mtok, expiresAt: new Date(exp * 1000), issuer: iss }
}

// Accept the offered endpoint with or without one trailing slash: both name
// the same base URL, and refusing one of them would only strand paid buyers.
const audiencesOf = (endpoint: string) => {
  const bare = endpoint.replace(/\/+$/, '')
  return [bare, `${bare}/`]
}

const toVerifyGrantError = (error: unknown, endpoint: string): VerifyGrantErrorType => {
  if (error instanceof errors.JWTExpired)
    return new GrantError(GrantReason.expired, 'grant expired: re-read the match for a fresh one', {
      cause: error,
    })
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === 'missing')
      return new GrantError(GrantReason.missingClaims, `grant has no "${error.claim}" claim`, {
        cause: error,
      })
    if (error.claim === 'aud')
      return new GrantError(GrantReason.wrongAudience, `grant is not for ${endpoint}`, {
        cause: error,
      })
    if (error.claim === 'iss')
      return new GrantError(GrantReason.wrongIssuer, 'grant was issued by another hub', {
        cause: error,
      })
    return new GrantError(GrantReason.malformed, `grant ${error.message}`, { cause: error })
  }
  if (error instanceof errors.JOSEAlgNotAllowed)
    return new GrantError(GrantReason.badSignature, 'grant must be signed with ES256', {
      cause: error,
    })
  if (
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWKSMultipleMatchingKeys
  )
    return new GrantError(GrantReason.badSignature, 'grant signature does not match a hub key', {
      cause: error,
    })
  if (
    error instanceof errors.JWSInvalid ||
    error instanceof errors.JWTInvalid ||
    error instanceof errors.JOSENotSupported
  )
    return new GrantError(GrantReason.malformed, 'grant is not a well-formed JWT', { cause: error })
  // The only I/O inside jwtVerify is fetching the key set: anything else
  // (timeout, non-200, bad JSON, refused connection) is the hub's keys.
  return new HubKeysUnavailableError('hub keys unavailable', {
    details: error instanceof Error ? error.message : String(error),
    cause: error,
  })
}

import {
  createRemoteJWKSet,
  customFetch,
  decodeJwt,
  decodeProtectedHeader,
  type FetchImplementation,
  jwtVerify,
} from 'jose'
import { LOGIN_FAILURES, type LoginFailure } from '../login/login-failures.ts'
import type { LoginVerification } from '../login/login-verification.ts'
import { decodeSiweAuthToken } from '../login/siwe-auth-token.ts'
import { verifySiweToken } from '../login/verify-siwe-token.ts'
import { TrustedIssuer, type TrustedIssuerInput } from './trusted-issuer.ts'

export type LoginVerifierConfig = {
  issuers: readonly TrustedIssuerInput[]
  /** Enables Sign-In with Ethereum for this domain (host[:port]). */
  siweDomain?: string | undefined
  /**
   * The origin a SIWE message's URI must be on (the venue's; a function when
   * it is known only once the server listens). Without it the URI's host
   * must be `siweDomain`.
   */
  siweOrigin?: string | (() => string) | undefined
  /** The chains a SIWE message may name; `[SIWE_CHAIN_ID]` (Base) by default. */
  siweChainIds?: readonly number[]
  clockToleranceSeconds?: number
  /** How old a SIWE message's `Issued At` may be. */
  siweMaxAgeSeconds?: number
}

export type CreateLoginVerifierOptions = {
  /** Used for JWKS downloads (tests, proxies). */
  fetch?: typeof fetch
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number
  /** Limit for one JWKS download. */
  jwksTimeoutMs?: number
  /**
   * Spends a SIWE message's nonce: true when the venue issued it and nobody
   * used it. Without it any well-formed nonce passes (a library use with no
   * nonce store).
   */
  useSiweNonce?: (nonce: string) => Promise<boolean>
}

export type VerifyLoginTokenOptions = {
  /** The SIWE nonce the caller issued, when it issued one. */
  nonce?: string | undefined
}

export type LoginVerifier = (
  authToken: string,
  options?: VerifyLoginTokenOptions,
) => Promise<LoginVerification>

// Real access tokens are 1-2 KB; the cap bounds decoding work on hostile input.
const MAX_TOKEN_CHARS = 8192
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/

const fail = (reason: LoginFailure): LoginVerification => ({ ok: false, reason })

const hasScope = (scope: unknown, wanted: string) =>
  typeof scope === 'string' && scope.split(/\s+/).includes(wanted)

/** Maps jose's error codes to our stable reasons; anything unexpected means the keys failed. */
const reasonOf = (error: unknown): LoginFailure => {
  const { code, claim } = (error ?? {}) as { code?: string; claim?: string }
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return LOGIN_FAILURES.expired
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (claim === 'aud') return LOGIN_FAILURES.wrongAudience
      if (claim === 'nbf' || claim === 'iat') return LOGIN_FAILURES.notYetValid
      if (claim === 'iss') return LOGIN_FAILURES.unknownIssuer
      return LOGIN_FAILURES.invalidClaims
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return LOGIN_FAILURES.algorithmNotAllowed
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return LOGIN_FAILURES.badSignature
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return LOGIN_FAILURES.unknownKey
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
    case 'ERR_JOSE_NOT_SUPPORTED':
      return LOGIN_FAILURES.malformed
    default:
      // ERR_JWKS_TIMEOUT, ERR_JWKS_INVALID, ERR_JWK_INVALID, a non-200 JWKS answer,
      // or fetch's own TypeError: the issuer's keys could not be read.
      return LOGIN_FAILURES.keysUnavailable
  }
}

/**
 * Resolves the trusted issuers once and returns `verifyLoginToken`, which
 * checks the login token a human brings to the claim page. A JWT is matched
 * to an issuer by its (unverified) `iss`, then verified with that issuer's
 * audience and algorithms pinned, against its JWKS (fetched once per URL and
 * cached). Anything without dots is tried as a SIWE token when a SIWE domain
 * is configured. Never throws for a bad token; throws at creation for a bad
 * issuer list (a configuration fault).
 *
 * @example
 * const verifyLoginToken = createLoginVerifier(toLoginVerifierConfig(config))
 * const login = await verifyLoginToken(authToken)
 * if (!login.ok) throw new ApiError(401, 'auth verification failed', { reason: login.reason })
 */
export const createLoginVerifier = (
  config: LoginVerifierConfig,
  {
    fetch: fetchImpl,
    now = Date.now,
    jwksTimeoutMs = 5000,
    useSiweNonce,
  }: CreateLoginVerifierOptions = {},
): LoginVerifier => {
  const issuers = new Map(
    config.issuers.map((input) => {
      const trusted = TrustedIssuer.parse(input)
      return [trusted.issuer, trusted] as const
    }),
  )
  const {
    siweDomain,
    siweOrigin,
    siweChainIds,
    clockToleranceSeconds = 30,
    siweMaxAgeSeconds = 600,
  } = config

  // One key set per URL, so issuers sharing keys share one cache and one cooldown.
  const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>()
  const keySetFor = (url: string) => {
    let keySet = keySets.get(url)
    if (!keySet) {
      keySet = createRemoteJWKSet(new URL(url), {
        timeoutDuration: jwksTimeoutMs,
        ...(fetchImpl ? { [customFetch]: fetchImpl as FetchImplementation } : {}),
      })
      keySets.set(url, keySet)
    }
    return keySet
  }

  const verifyJwt = async (token: string): Promise<LoginVerification> => {
    let alg: string | undefined
    let iss: unknown
    try {
      alg = decodeProtectedHeader(token).alg
      iss = decodeJwt(token).iss
    } catch {
      return fail(LOGIN_FAILURES.malformed)
    }
    // The unverified `iss` only picks which keys and rules apply; jwtVerify re-checks it.
    const trusted = typeof iss === 'string' ? issuers.get(iss) : undefined
    if (!trusted) return fail(LOGIN_FAILURES.unknownIssuer)
    // Checked before any key lookup: an HS256 token "signed" with a public key,
    // or `none`, never reaches the key set.
    if (!alg || !(trusted.algorithms as readonly string[]).includes(alg))
      return fail(LOGIN_FAILURES.algorithmNotAllowed)
    try {
      const { payload } = await jwtVerify(token, keySetFor(trusted.jwksUrl), {
        issuer: trusted.issuer,
        audience: trusted.audience,
        algorithms: trusted.algorithms,
        clockTolerance: clockToleranceSeconds,
        currentDate: new Date(now()),
        requiredClaims: ['sub', 'exp'],
      })
      // The subject is stored: one the database cannot hold (U+0000, over 200 characters) is refused.
      if (
        typeof payload.sub !== 'string' ||
        payload.sub === '' ||
        payload.sub.length > 200 ||
        payload.sub.includes('\u0000')
      )
        return fail(LOGIN_FAILURES.invalidClaims)
      // Dynamic: without `user:basic` the user has not finished signing in (e.g. MFA pending).
      if (trusted.kind === 'dynamic' && !hasScope(payload.scope, 'user:basic'))
        return fail(LOGIN_FAILURES.invalidClaims)
      return { ok: true, subject: payload.sub, issuer: trusted.issuer, method: 'jwt' }
    } catch (error) {
      return fail(reasonOf(error))
    }
  }

  return async function verifyLoginToken(authToken, { nonce } = {}) {
    if (typeof authToken !== 'string' || authToken === '' || authToken.length > MAX_TOKEN_CHARS)
      return fail(LOGIN_FAILURES.malformed)
    if (JWT_SHAPE.test(authToken)) return verifyJwt(authToken)
    if (!decodeSiweAuthToken(authToken)) return fail(LOGIN_FAILURES.malformed)
    if (!siweDomain) return fail(LOGIN_FAILURES.unknownIssuer)
    return verifySiweToken({
      authToken,
      domain: siweDomain,
      origin: typeof siweOrigin === 'function' ? siweOrigin() : siweOrigin,
      ...(siweChainIds ? { chainIds: siweChainIds } : {}),
      useNonce: useSiweNonce,
      now: now(),
      clockToleranceSeconds,
      maxAgeSeconds: siweMaxAgeSeconds,
      nonce,
    })
  }
}

import { z } from 'zod'
import { HttpsOrLoopbackUrl } from './https-url.ts'
import type { LoginVerifierConfig } from './login-token.ts'
import { TrustedIssuer } from './trusted-issuer.ts'

const IssuerList = z
  .string()
  .transform((value, context) => {
    try {
      return JSON.parse(value) as unknown
    } catch {
      context.addIssue({ code: 'custom', message: 'expected a JSON array of issuers' })
      return z.NEVER
    }
  })
  .pipe(
    z.array(TrustedIssuer).refine((issuers) => {
      const names = issuers.map((entry) => entry.issuer)
      return new Set(names).size === names.length
    }, 'each issuer may appear once'),
  )

/**
 * The login settings, to spread into the service config (`...LoginConfig.shape`).
 * Documented in identity/README.md.
 */
export const LoginConfig = z.object({
  /** JSON array of trusted issuers; unset = none (only SIWE, if its domain is set). */
  VENUE_LOGIN_ISSUERS: IssuerList.default([]),
  /** Turns Sign-In with Ethereum on: the domain (host[:port]) SIWE messages must name. */
  VENUE_LOGIN_SIWE_DOMAIN: z
    .string()
    .regex(/^[A-Za-z0-9.-]+(:\d{1,5})?$/, 'expected a host name, optionally with :port')
    .optional(),
  /** Where the claim page sends the human to sign in; it returns with `#authToken=...`. */
  VENUE_LOGIN_URL: HttpsOrLoopbackUrl.optional(),
  /** Leeway for exp/nbf (and SIWE times) against clock skew. */
  VENUE_LOGIN_CLOCK_TOLERANCE_SECONDS: z.coerce.number().int().min(0).max(300).default(30),
})
export type LoginConfig = z.infer<typeof LoginConfig>

/** Turns parsed VENUE_LOGIN_* settings into `createLoginVerifier` configuration. */
export const toLoginVerifierConfig = (config: LoginConfig): LoginVerifierConfig => ({
  issuers: config.VENUE_LOGIN_ISSUERS,
  siweDomain: config.VENUE_LOGIN_SIWE_DOMAIN,
  clockToleranceSeconds: config.VENUE_LOGIN_CLOCK_TOLERANCE_SECONDS,
})

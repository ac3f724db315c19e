import { z } from 'zod'
import { HttpsOrLoopbackUrl } from './https-url.ts'

export const LOGIN_ALGORITHMS = ['ES256', 'RS256', 'EdDSA'] as const

/**
 * One trusted issuer of login tokens. `kind` switches on provider rules
 * beyond the JWT standard claims (Dynamic: the `scope` must contain
 * `user:basic`). See README.md for the Privy and Dynamic values.
 */
export const TrustedIssuer = z.object({
  /** Exact `iss` value (Privy: `privy.io`; Dynamic: `app.dynamicauth.com/<environmentId>`). */
  issuer: z.string().min(1),
  /** Expected `aud`; several are allowed (Dynamic's `aud` is the site origin). */
  audience: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  jwksUrl: HttpsOrLoopbackUrl,
  algorithms: z.array(z.enum(LOGIN_ALGORITHMS)).min(1),
  kind: z.enum(['privy', 'dynamic', 'generic']).default('generic'),
})
export type TrustedIssuer = z.infer<typeof TrustedIssuer>
export type TrustedIssuerInput = z.input<typeof TrustedIssuer>

import type { LoginFailure } from './login-failures.ts'

/** The outcome of checking a login token; bad tokens are data, never exceptions. */
export type LoginVerification =
  | {
      ok: true
      /** Stable user id: the JWT `sub`, or `siwe:<checksummed address>`. */
      subject: string
      /** The JWT `iss`, or `siwe` for Sign-In with Ethereum. */
      issuer: string
      method: 'jwt' | 'siwe'
      /** The wallet that signed (SIWE only). */
      address?: string
    }
  | { ok: false; reason: LoginFailure }

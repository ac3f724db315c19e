import type { LoginFailure } from './errors.ts'

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

/** A verified identity-provider webhook, reduced to what the venue acts on. */
export type IdpEvent = {
  /** `status.updated` is the only type the venue acts on; others are acknowledged. */
  webhookType: string
  /** Empty when an event type carries no session (entity-level events). */
  sessionId: string
  /** "Approved", "Declined", "In Review", ...; empty when absent. */
  status: string
  /** What the venue put in `vendor_data` when it created the session. */
  vendorData?: string
  /** The provider's decision, as sent. Holds personal data: read what you need, never store it. */
  decision?: unknown
  /** Whole years, from the decision's ID-verification part; undefined when it has none. */
  age?: number | undefined
}

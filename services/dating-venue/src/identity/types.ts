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

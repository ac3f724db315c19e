/** What the venue's identity routes answer: refusals, and the notes of a webhook that changed nothing. */
export const IDENTITY_ERRORS = {
  ownerIdRequired: 'ownerId required',
  noSuchOwner: 'no such owner',
  notClaimed: 'owner must claim a profile before identity check',
  notYourOwner: 'signed-in human did not claim this owner',
  providerUnavailable: 'identity provider unavailable',
  noProvider: 'no identity provider configured',
  retrySession: 'identity provider unavailable; retry with POST /api/identity/session',
  alreadyVerified: 'identity already verified',
  webhookRejected: 'webhook rejected',
  noSession: 'no matching session/vendor_data',
  olderDelivery: 'an older or repeated delivery; nothing changed',
  alreadyFinal: (status: string) => `session already ${status}; nothing changed`,
  noAge: 'approved without an age: not verified',
  under18: 'under 18: not verified; personas withdrawn',
  under18Reason: 'identity check: under 18',
} as const

/** What the featured slot answers when it refuses; every one comes before any payment. */
export const FEATURED_ERRORS = {
  invalidBody: 'invalid featured post',
  noSuchPersona: 'no such persona',
  notYourPersona: 'credential does not act for this persona',
  boardsClosed: 'boards are closed until the venue opens; GET /api/floor is the public feed',
  held: 'featured post held by the safety check: nothing was charged',
  blocked: 'post blocked',
  checkUnavailable: 'safety check unavailable: nothing was charged; retry later',
  full: 'featured slots full on this board',
} as const

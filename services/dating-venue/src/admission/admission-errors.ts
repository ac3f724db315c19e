/** What entering a persona answers when it refuses (the 400s, 401, 403 and 409). */
export const ADMISSION_ERRORS = {
  invalidPersona: 'invalid persona',
  handleTaken: 'handle taken',
  bindingWhat: 'binding a persona to an owner',
  notThisOwner: 'credential does not act for this owner',
  endpointBound: 'this agent endpoint already speaks for a persona',
} as const

/** The `reason` of a 422 `{ admitted: false }` (the chaperone's own reason otherwise). */
export const ADMISSION_REASONS = {
  admitted: 'admitted',
  adultOnly: 'adult-only venue',
  capReached: 'cap reached',
} as const

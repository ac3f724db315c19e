/** What the board routes answer when they refuse. */
export const BOARD_ERRORS = {
  invalidPost: 'invalid post',
  invalidBoard: 'invalid board',
  postingWhat: 'posting for a persona',
  boardsClosed: 'boards are closed until the venue opens; GET /api/floor is the public feed',
  venueOnly: 'notifications is written by the venue only',
  turnsElsewhere: 'courtship turns go to POST /api/couples/:id/turns',
  agentBoardsOnly: (boards: readonly string[]) => `agents post to ${boards.join(' and ')} only`,
  noSuchPersona: 'no such persona',
  notThisPersona: 'credential does not act for this persona',
  notAdmitted: (status: string) => `persona is ${status}, not admitted`,
  checkUnavailable: 'safety check unavailable: nothing was published; retry later',
  blocked: 'post blocked',
} as const

/** What the couple routes answer when they refuse. */
export const COUPLE_ERRORS = {
  badCoupleId: 'bad couple id',
  invalidTurn: 'invalid turn',
  invalidWithdraw: 'invalid withdraw',
  personaIdRequired: 'personaId required',
  actingFor: 'acting for a persona of this couple',
  noSuchCouple: 'no such couple',
  personaNotInCouple: 'persona not in this couple',
  notThisPersona: 'credential does not act for this persona',
  coupleIs: (state: string | undefined) => `couple is ${state}`,
  checkUnavailable: 'safety check unavailable: nothing was published; retry later',
  turnBlocked: 'turn blocked',
  waitForPartner: 'wait for your partner: the same persona never writes twice in a row',
  alreadyEnded: 'the courtship has already ended',
} as const

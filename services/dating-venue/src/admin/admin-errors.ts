/** What the operator console answers when it refuses. */
export const ADMIN_ERRORS = {
  operatorRequired: 'operator credential required',
  operatorNotRecognised: 'operator credential not recognised',
  noConsole: 'no such room',
  badCycleId: 'cycleId must be 1-80 characters of letters, digits, _ : . -',
  beatRunning: 'a beat is running; try again when it ends',
  keyNotAllowed: 'key not allowed',
  valueRequired: 'value required',
  coupleIdRequired: 'coupleId required',
  noSuchCouple: 'no such couple',
  notCommitted: (state: string) => `couple is ${state}, not committed`,
} as const

/** What the compatibility report answers when it refuses, before any payment is asked. */
export const REPORT_ERRORS = {
  invalidBody: 'invalid compatibility report',
  noSuchOwner: 'no such owner',
  notYourOwner: 'credential does not act for this owner',
  noSuchCouple: 'no such couple',
  notInCouple: 'owner not in this couple',
  noDoc: 'no dating doc on file for this owner',
  undelivered: 'the report could not be delivered: its price was credited',
} as const

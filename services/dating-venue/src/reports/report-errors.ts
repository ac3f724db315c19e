/** What filing a report answers when it refuses. */
export const REPORT_ERRORS = {
  invalidReport: 'invalid report',
  reportingWhat: 'reporting',
  /** `no such persona`, `no such post`...: the message on targetId. */
  noSuchTarget: (targetType: string) => `no such ${targetType}`,
} as const

/** Why a held item was held. */
export const HELD_REASON = 'reported'

/** What filing a dating doc answers when it refuses (all before any payment is asked). */
export const INTAKE_ERRORS = {
  invalidHeartFile: 'invalid heart-file',
  adultOnly: 'adult-only venue: ageAttested must be true',
  personalData: (found: readonly string[]) =>
    `personal data found: ${found.join(', ')}; contact details go in contactRef only`,
} as const

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The ID-verification part of a decision. Didit has used three spellings:
 * `id_verification` (v2 webhooks), `id_verifications[0]` (v3: one entry per
 * ID step) and `kyc` (v1).
 */
const idVerificationOf = (decision: unknown): Record<string, unknown> | undefined => {
  if (!isRecord(decision)) return undefined
  if (isRecord(decision.id_verification)) return decision.id_verification
  const list = decision.id_verifications
  if (Array.isArray(list) && isRecord(list[0])) return list[0]
  if (isRecord(decision.kyc)) return decision.kyc
  return undefined
}

/** Whole years between a `YYYY-MM-DD` birth date and `now`, in UTC; undefined if not a real date. */
const ageOnDate = (dateOfBirth: unknown, now: number): number | undefined => {
  if (typeof dateOfBirth !== 'string') return undefined
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(dateOfBirth)
  if (!match) return undefined
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const birth = new Date(Date.UTC(year, month - 1, day))
  // Rejects dates JavaScript would roll over, such as 2001-02-30.
  if (birth.getUTCFullYear() !== year || birth.getUTCMonth() !== month - 1) return undefined
  const today = new Date(now)
  let age = today.getUTCFullYear() - year
  const thisMonth = today.getUTCMonth() + 1
  // Before the birthday this year, one year less. A 29 February birthday
  // counts from 1 March in other years (the later, stricter reading).
  if (thisMonth < month || (thisMonth === month && today.getUTCDate() < day)) age--
  return age >= 0 ? age : undefined
}

/**
 * The age from a provider decision: `age` and/or `date_of_birth` in its
 * ID-verification part. When both are present the smaller wins: for an
 * 18+ gate the cautious reading is the right one.
 *
 * @example extractAge({ id_verification: { age: 34 } }) // 34
 */
export const extractAge = (decision: unknown, now: number = Date.now()): number | undefined => {
  const part = idVerificationOf(decision)
  if (!part) return undefined
  const stated =
    typeof part.age === 'number' && Number.isInteger(part.age) && part.age >= 0 && part.age < 150
      ? part.age
      : undefined
  const computed = ageOnDate(part.date_of_birth, now)
  if (stated === undefined) return computed
  return computed === undefined ? stated : Math.min(stated, computed)
}

import type { DenyCategory, PersonalDataKind, SafetyContext, SafetyVerdict } from './types.ts'

// Verdict mapping (copied into safety/README.md; keep the two in step):
//
//   found                                               verdict  reason
//   personal data (phone, email, handle, link, wallet)  block    "personal data: <kinds>"
//   minors (self-stated age < 18, school-age + sexual)  block    "minor or under-18 content"
//   sexual_solicitation                                 block    "sexual solicitation"
//   harassment (threats, slurs, "kill yourself")        block    "harassment or threat"
//   scam (romance-scam scripts)                         block    "scam pattern"
//   money (asks for money, payment apps, gift cards)    block    "money request"
//   moderation: sexual/minors, harassment/threatening,
//     hate/threatening, violence/graphic,
//     self-harm/instructions                            block    "moderation: <categories>"
//   profanity (obscenity hit, no other category)        hold     "profanity"
//   moderation: any other flagged category              hold     "moderation: <categories>"
//   nothing                                             allow    "ok"
//
// The first row that applies gives the reason; `categories` lists everything found.
// For `report` texts (a reporter describing abuse is evidence, not abuse) content rows
// hold instead of block; personal data still blocks, since reports are stored too.

export const SAFETY_REASONS = {
  ok: 'ok',
  empty: 'empty text',
  unavailable: 'safety check unavailable',
  minors: 'minor or under-18 content',
  sexual_solicitation: 'sexual solicitation',
  harassment: 'harassment or threat',
  scam: 'scam pattern',
  money: 'money request',
  profanity: 'profanity',
} as const

/** Moderation categories that block outright; any other flagged category holds. */
export const BLOCKING_MODERATION_CATEGORIES: ReadonlySet<string> = new Set([
  'sexual/minors',
  'harassment/threatening',
  'hate/threatening',
  'violence/graphic',
  'self-harm/instructions',
])

// Strongest first: the first one found names the reason.
const BLOCKING_DENY: readonly DenyCategory[] = [
  'minors',
  'sexual_solicitation',
  'harassment',
  'scam',
  'money',
]

export type DecideVerdictParameters = {
  personalData: readonly PersonalDataKind[]
  deny: readonly DenyCategory[]
  /** Flagged moderation categories; empty or absent when not flagged or not configured. */
  moderation?: readonly string[]
  kind?: SafetyContext['kind']
}

/** Maps what the screens found to allow/hold/block with a stable reason (table above). */
export const decideVerdict = ({
  personalData,
  deny,
  moderation = [],
  kind,
}: DecideVerdictParameters): SafetyVerdict => {
  const categories = [
    ...personalData.map((found) => `personal_data:${found}`),
    ...deny,
    ...moderation.map((found) => `moderation:${found}`),
  ].sort()
  const verdict = (level: 'block' | 'hold', reason: string): SafetyVerdict => ({
    verdict: level === 'block' && kind === 'report' ? 'hold' : level,
    reason,
    categories,
  })

  if (personalData.length > 0)
    return { verdict: 'block', reason: `personal data: ${personalData.join(', ')}`, categories }
  const blockingDeny = BLOCKING_DENY.find((category) => deny.includes(category))
  if (blockingDeny) return verdict('block', SAFETY_REASONS[blockingDeny])
  const blockingModeration = moderation.filter((found) => BLOCKING_MODERATION_CATEGORIES.has(found))
  if (blockingModeration.length > 0)
    return verdict('block', `moderation: ${blockingModeration.join(', ')}`)
  if (deny.includes('profanity')) return verdict('hold', SAFETY_REASONS.profanity)
  if (moderation.length > 0) return verdict('hold', `moderation: ${moderation.join(', ')}`)
  return { verdict: 'allow', reason: SAFETY_REASONS.ok, categories }
}

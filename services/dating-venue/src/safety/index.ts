export { checkMany } from './check-many.ts'
export {
  type CreateDenyListParameters,
  createDenyList,
  type DenyList,
  DenyPhraseError,
} from './create-deny-list.ts'
export {
  type CreateSafetyCheckParameters,
  createSafetyCheck,
  MODERATION_BATCH_SIZE,
} from './create-safety-check.ts'
export {
  BLOCKING_MODERATION_CATEGORIES,
  type DecideVerdictParameters,
  decideVerdict,
  SAFETY_REASONS,
} from './decide-verdict.ts'
export { DENY_PATTERNS, DENY_PHRASES } from './deny-phrases.ts'
export {
  type ModerateTextReturnType,
  ModerationOptions,
  ModerationUnavailableError,
  moderateText,
  moderateTexts,
} from './moderate-text.ts'
export { type ScreenPersonalDataReturnType, screenPersonalData } from './screen-personal-data.ts'
export type {
  DenyCategory,
  PersonalDataKind,
  SafetyCheck,
  SafetyContext,
  SafetyVerdict,
} from './types.ts'

import type { Condition } from './pad.ts'

/** Whether an intent's knobs satisfy a pad condition (used by rules and salt variants). */
export const conditionHolds = (condition: Condition, knobs: Record<string, unknown>): boolean => {
  if (!(condition.knob in knobs)) return false
  const value = knobs[condition.knob]
  if (condition.in && !condition.in.some((allowed) => allowed === value)) return false
  if (condition.notIn?.some((excluded) => excluded === value)) return false
  return true
}

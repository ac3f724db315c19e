import { quotesHeart } from '../beat/intro.ts'
import type { SafetyCheck } from '../safety/index.ts'
import { screenPersonalData } from '../safety/index.ts'

export type ReportCheck =
  | { ok: true }
  | {
      ok: false
      reason: 'quotes the other heart' | 'personal data' | 'withheld' | 'check unavailable'
    }

/**
 * What every report passes before delivery, whoever wrote it: no six
 * consecutive words of the other side's heart, no personal data, and the
 * safety check's allow (fail closed: a check that cannot run is no allow).
 */
export const checkReport = async (
  safety: SafetyCheck,
  report: string,
  otherHeartText: string | undefined,
): Promise<ReportCheck> => {
  if (otherHeartText && quotesHeart(report, [otherHeartText]))
    return { ok: false, reason: 'quotes the other heart' }
  if (screenPersonalData(report).found.length > 0) return { ok: false, reason: 'personal data' }
  // The matchmaker's own words, judged as its opening lines are (`report` is for abuse reports).
  const verdict = await safety(report, { kind: 'intro' })
  if (verdict.verdict === 'allow') return { ok: true }
  return { ok: false, reason: verdict.unavailable ? 'check unavailable' : 'withheld' }
}

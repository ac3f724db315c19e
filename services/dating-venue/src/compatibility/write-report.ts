import type { ChatSettings } from '../ask-matchmaker/chat-settings.ts'
import type { SafetyCheck } from '../safety/index.ts'
import { checkReport } from './check-report.ts'
import { composeReport } from './compose-report.ts'
import { generateReport } from './generate-report.ts'
import type { ReportInputs } from './report-inputs.ts'

/** How many times the configured model is asked before the delivery counts as failed. */
const MODEL_ATTEMPTS = 2

export type WrittenReport =
  /** Delivered: the model's text, or the venue's own when the model's failed the checks or none is configured. */
  | { kind: 'report'; text: string; source: 'model' | 'venue' }
  /** The model could not answer twice, or the safety check could not run: the venue failed (credited). */
  | { kind: 'undeliverable'; cause: 'model unavailable' | 'safety check unavailable' }
  /** Every candidate failed the checks: withheld (not credited, as the spec says). */
  | { kind: 'withheld'; reason: string }

/**
 * Writes an owner's report. With a chat model configured, its text is the
 * product: asked up to twice, then (if it still cannot answer) the delivery
 * failed. A model answer that quotes the other heart, leaks personal data
 * or is not allowed by the safety check is replaced by the venue's own
 * composition, which passes the same checks.
 */
export const writeReport = async (
  {
    safety,
    chat,
    fetchImpl,
  }: { safety: SafetyCheck; chat: ChatSettings | undefined; fetchImpl?: typeof fetch },
  inputs: ReportInputs,
): Promise<WrittenReport> => {
  let refusal = 'no report'
  if (chat) {
    let generated: string | undefined
    for (let attempt = 0; attempt < MODEL_ATTEMPTS && generated === undefined; attempt++)
      generated = await generateReport(chat, inputs, fetchImpl)
    if (generated === undefined) return { kind: 'undeliverable', cause: 'model unavailable' }
    const checked = await checkReport(safety, generated, inputs.otherHeartText)
    if (checked.ok) return { kind: 'report', text: generated, source: 'model' }
    if (checked.reason === 'check unavailable')
      return { kind: 'undeliverable', cause: 'safety check unavailable' }
    refusal = checked.reason
  }
  const composed = composeReport(inputs.ownHeart, inputs.signals)
  const checked = await checkReport(safety, composed, inputs.otherHeartText)
  if (checked.ok) return { kind: 'report', text: composed, source: 'venue' }
  // A safety check that cannot run is the venue's failure, not the content's.
  if (checked.reason === 'check unavailable')
    return { kind: 'undeliverable', cause: 'safety check unavailable' }
  return { kind: 'withheld', reason: chat ? refusal : checked.reason }
}

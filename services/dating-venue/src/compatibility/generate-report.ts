import { chatCompletion } from '../ask-matchmaker/chat-completion.ts'
import type { ChatSettings } from '../ask-matchmaker/chat-settings.ts'
import type { Heart } from '../heart/heart-schema.ts'
import { heartProse } from '../heart/heart-schema.ts'
import type { ReportSignals } from './report-signals.ts'

const SYSTEM = [
  'You are the matchmaker of a text-only adult dating venue, writing a private compatibility report for one member.',
  "You are given the member's own dating doc and, when there is a match, only derived signals about the match (never their words).",
  'Write 150 to 350 words in plain text with the sections Overview, What you share, Where you differ, Your own doc.',
  'Never invent facts about the match beyond the signals. Never include names, contact details, places, numbers other than the similarity, or links.',
].join(' ')

/**
 * Asks the configured chat model (OpenAI-compatible) for the report, from
 * the owner's own doc and the pair's signals. Undefined when the model could
 * not answer (down, timeout, error, empty): the caller re-attempts or
 * credits; it never falls back silently to a different product.
 */
export const generateReport = (
  settings: ChatSettings,
  { ownHeart, signals }: { ownHeart: Heart | string; signals: ReportSignals | undefined },
  fetchImpl: typeof fetch = fetch,
): Promise<string | undefined> =>
  chatCompletion(
    settings,
    [
      { role: 'system', content: SYSTEM },
      {
        role: 'user',
        content: `My dating doc:\n${heartProse(ownHeart)}\n\nSignals about my match (JSON):\n${JSON.stringify(signals ?? null)}`,
      },
    ],
    { maxTokens: 700, maxChars: 4000, fetchImpl },
  )

import type { OutboundCalls } from '../budget/spend-outbound.ts'
import type { SafetyCheck } from '../safety/index.ts'
import { chatCompletion } from './chat-completion.ts'
import type { ChatSettings } from './chat-settings.ts'

const SYSTEM = [
  'You are the matchmaker of an adult-only, text-only dating venue, talking with one member.',
  'Coach them on dating and help them write their dating doc (about, seeking, relationship intent, values, interests, dealbreakers, vibe, logistics).',
  'Never reveal anything about other members, never ask for or repeat contact details (phone numbers, e-mails, handles, links, addresses), and stay on dating.',
  'Answer in at most 150 words.',
].join(' ')

/** The venue's answer when no chat model is configured (the offline interview drafts docs). */
export const NO_MODEL_ANSWER =
  '(Coaching needs the matchmaker model, which this venue has not configured; the interview drafts your doc without it.)'

export type MatchmakerAnswer =
  | { kind: 'answer'; text: string }
  /** The message or the answer did not pass the safety check: counted as used, not credited. */
  | { kind: 'withheld'; reason: string }
  /** The venue could not answer (model or safety check down): not counted. */
  | { kind: 'unavailable'; reason: string }

/** The outside calls one answer may make: the message's check, the model, the answer's check. */
export const MATCHMAKER_CALLS = { moderation: 2, model: 1 } as const satisfies OutboundCalls

const ask = (chat: ChatSettings, message: string, fetchImpl: typeof fetch | undefined) =>
  chatCompletion(
    chat,
    [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: message },
    ],
    { maxTokens: 300, maxChars: 2000, fetchImpl },
  )

/**
 * One answer of the matchmaker: the human's message passes the safety check
 * (fail closed), the configured model answers, and the answer passes the
 * check and the personal-data screen before anyone sees it. The model sees
 * only this message: nothing of other members is ever in its context.
 * Its outside calls (`MATCHMAKER_CALLS`) are the caller's to spend first: a
 * free or credited answer's just before (`askAsHuman`), a paid answer's
 * before its payment.
 */
export const answerAsMatchmaker = async (
  {
    safety,
    chat,
    fetchImpl,
  }: {
    safety: SafetyCheck
    chat: ChatSettings | undefined
    fetchImpl?: typeof fetch
  },
  message: string,
): Promise<MatchmakerAnswer> => {
  const asked = await safety(message, { kind: 'post' })
  if (asked.unavailable) return { kind: 'unavailable', reason: 'safety check unavailable' }
  if (asked.verdict !== 'allow') return { kind: 'withheld', reason: asked.reason }
  if (!chat) return { kind: 'answer', text: NO_MODEL_ANSWER }
  const text = await ask(chat, message, fetchImpl)
  if (text === undefined)
    return { kind: 'unavailable', reason: 'the matchmaker model did not answer' }
  // The check screens personal data too (a local block, final): one pass over the answer.
  const answered = await safety(text, { kind: 'intro' })
  if (answered.unavailable) return { kind: 'unavailable', reason: 'safety check unavailable' }
  if (answered.categories.some((category) => category.startsWith('personal_data:')))
    return { kind: 'withheld', reason: 'the answer carried contact details' }
  if (answered.verdict !== 'allow') return { kind: 'withheld', reason: answered.reason }
  return { kind: 'answer', text }
}

import { type CreateDenyListParameters, createDenyList } from './create-deny-list.ts'
import { type DecideVerdictParameters, decideVerdict, SAFETY_REASONS } from './decide-verdict.ts'
import { ModerationOptions, moderateText } from './moderate-text.ts'
import { normalizeText } from './normalize-text.ts'
import { screenPersonalData } from './screen-personal-data.ts'
import type { SafetyCheck, SafetyVerdict } from './types.ts'

export type CreateSafetyCheckParameters = {
  /** An OpenAI-compatible moderation endpoint; without it only the local rules run. */
  moderation?: ModerationOptions | undefined
  /** Used for the moderation call (tests and proxies); defaults to the global fetch. */
  fetch?: typeof globalThis.fetch
  /** More deny phrases per category, same rules as the built-in lists. */
  extraPhrases?: CreateDenyListParameters['extraPhrases']
  /** Told of each moderation call and how it went (`outbound_calls_total`). */
  onCall?: (outcome: 'ok' | 'error') => void
}

const unavailable = (): SafetyVerdict => ({
  verdict: 'block',
  reason: SAFETY_REASONS.unavailable,
  categories: [],
  unavailable: true,
})

/**
 * The venue's fail-closed safety check, run on every write (hearts, turns, posts,
 * intros, reports): personal-data screening and the deny-list locally, then the
 * moderation endpoint when one is configured. The endpoint can only make a verdict
 * stricter; a local block is final and skips the call. Any failure (timeout, HTTP
 * error, bad body, an exception in the rules) blocks with `unavailable: true`.
 * Matchers are built here, once; options are validated here and throw at start-up.
 *
 * @example
 * const safety = createSafetyCheck({ moderation: { url: 'https://api.openai.com/v1', apiKey } })
 * await safety('I love hiking', { kind: 'heart' }) // { verdict: 'allow', reason: 'ok', categories: [] }
 */
export const createSafetyCheck = ({
  moderation,
  fetch = globalThis.fetch,
  extraPhrases,
  onCall,
}: CreateSafetyCheckParameters = {}): SafetyCheck => {
  const deny = createDenyList({ extraPhrases })
  const endpoint = moderation ? ModerationOptions.parse(moderation) : undefined

  return async function safetyCheck(text, context) {
    let found: DecideVerdictParameters
    let local: SafetyVerdict
    try {
      // Blank text carries nothing to publish or match. Routes that require text say
      // so in their schema (400); this only keeps blanks off the boards.
      if (typeof text !== 'string' || text.trim() === '')
        return { verdict: 'block', reason: SAFETY_REASONS.empty, categories: [] }
      const normalized = normalizeText(text)
      found = {
        personalData: screenPersonalData(text, normalized).found,
        deny: deny(text, normalized),
        kind: context?.kind,
      }
      local = decideVerdict(found)
    } catch {
      return unavailable()
    }
    if (!endpoint || local.verdict === 'block') return local
    let categories: string[]
    try {
      ;({ categories } = await moderateText({ fetch }, { ...endpoint, input: text }))
    } catch {
      onCall?.('error')
      return unavailable()
    }
    onCall?.('ok')
    try {
      return decideVerdict({ ...found, moderation: categories })
    } catch {
      return unavailable()
    }
  }
}

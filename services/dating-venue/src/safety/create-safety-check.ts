import { type CreateDenyListParameters, createDenyList } from './create-deny-list.ts'
import { type DecideVerdictParameters, decideVerdict, SAFETY_REASONS } from './decide-verdict.ts'
import { ModerationOptions, moderateText, moderateTexts } from './moderate-text.ts'
import { normalizeText } from './normalize-text.ts'
import { screenPersonalData } from './screen-personal-data.ts'
import type { SafetyCheck, SafetyContext, SafetyVerdict } from './types.ts'

export type CreateSafetyCheckParameters = {
  /** An OpenAI-compatible moderation endpoint; without it only the local rules run. */
  moderation?: ModerationOptions | undefined
  /** Used for the moderation call (tests and proxies); defaults to the global fetch. */
  fetch?: typeof globalThis.fetch
  /** More deny phrases per category, same rules as the built-in lists. */
  extraPhrases?: CreateDenyListParameters['extraPhrases']
  /** Told of each moderation call and how it went (`outbound_calls_total`). */
  onCall?: (outcome: 'ok' | 'error') => void
  /** Texts per moderation call of the batch form (`many`). */
  batchSize?: number
}

/**
 * Texts per moderation call in the batch form. OpenAI's API reference allows
 * `input` as an array of strings and answers `results` in the same order, but
 * states no maximum count; 32 short texts (intros are at most 600
 * characters) keep each request small and one failure's reach to 32 texts.
 */
export const MODERATION_BATCH_SIZE = 32
// Batch calls in flight at once.
const MODERATION_CONCURRENCY = 4

type Screened =
  | { final: SafetyVerdict; found?: undefined }
  | { final?: undefined; found: DecideVerdictParameters }

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
 * The check's `many(texts, context)` gives each text the verdict it would get
 * alone, with the endpoint asked in chunks of `batchSize` texts per call; a
 * chunk whose call fails blocks each of its texts with `unavailable: true`.
 *
 * @example
 * const safety = createSafetyCheck({ moderation: { url: 'https://api.openai.com/v1', apiKey } })
 * await safety('I love hiking', { kind: 'heart' }) // { verdict: 'allow', reason: 'ok', categories: [] }
 * await safety.many!(['I love hiking', 'send nudes'], { kind: 'intro' }) // [allow, block]
 */
export const createSafetyCheck = ({
  moderation,
  fetch = globalThis.fetch,
  extraPhrases,
  onCall,
  batchSize = MODERATION_BATCH_SIZE,
}: CreateSafetyCheckParameters = {}): SafetyCheck => {
  const deny = createDenyList({ extraPhrases })
  const endpoint = moderation ? ModerationOptions.parse(moderation) : undefined

  /** The local rules: a final verdict, or what they found when the endpoint must still be asked. */
  const screen = (text: string, context: SafetyContext | undefined): Screened => {
    try {
      // Blank text carries nothing to publish or match. Routes that require text say
      // so in their schema (400); this only keeps blanks off the boards.
      if (typeof text !== 'string' || text.trim() === '')
        return { final: { verdict: 'block', reason: SAFETY_REASONS.empty, categories: [] } }
      const normalized = normalizeText(text)
      const found: DecideVerdictParameters = {
        personalData: screenPersonalData(text, normalized).found,
        deny: deny(text, normalized),
        kind: context?.kind,
      }
      const local = decideVerdict(found)
      return !endpoint || local.verdict === 'block' ? { final: local } : { found }
    } catch {
      return { final: unavailable() }
    }
  }
  const decide = (found: DecideVerdictParameters, categories: readonly string[]) => {
    try {
      return decideVerdict({ ...found, moderation: categories })
    } catch {
      return unavailable()
    }
  }

  const check = async function safetyCheck(text: string, context?: SafetyContext) {
    const screened = screen(text, context)
    if (screened.final) return screened.final
    let categories: string[]
    try {
      // `screen` leaves a verdict open only when there is an endpoint to ask.
      ;({ categories } = await moderateText({ fetch }, { ...endpoint!, input: text }))
    } catch {
      onCall?.('error')
      return unavailable()
    }
    onCall?.('ok')
    return decide(screened.found, categories)
  }

  const many = async function safetyCheckMany(
    texts: readonly string[],
    context?: SafetyContext,
  ): Promise<SafetyVerdict[]> {
    const screened = texts.map((text) => screen(text, context))
    const verdicts = screened.map((each) => each.final)
    const asked = [...screened.keys()].filter((index) => !screened[index]!.final)
    if (!endpoint || asked.length === 0) return verdicts.map((verdict) => verdict ?? unavailable())
    const chunks = Array.from({ length: Math.ceil(asked.length / batchSize) }, (_, n) =>
      asked.slice(n * batchSize, (n + 1) * batchSize),
    )
    // A few calls at a time: thousands of texts in chunks, without a burst at the endpoint.
    const workers = Array.from({ length: MODERATION_CONCURRENCY }, async () => {
      for (let indexes = chunks.shift(); indexes; indexes = chunks.shift()) {
        try {
          const results = await moderateTexts(
            { fetch },
            { ...endpoint, inputs: indexes.map((index) => texts[index]!) },
          )
          onCall?.('ok')
          for (const [n, index] of indexes.entries())
            verdicts[index] = decide(screened[index]!.found!, results[n]!.categories)
        } catch {
          // Fail closed per text, as the single check does: the whole chunk went unchecked.
          onCall?.('error')
          for (const index of indexes) verdicts[index] = unavailable()
        }
      }
    })
    await Promise.all(workers)
    return verdicts.map((verdict) => verdict ?? unavailable())
  }

  return Object.assign(check, { many })
}

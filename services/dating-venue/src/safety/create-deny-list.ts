import {
  DataSet,
  type EnglishProfaneWord,
  englishDataset,
  englishRecommendedTransformers,
  RegExpMatcher,
} from 'obscenity'
import {
  DENY_PATTERNS,
  DENY_PHRASES,
  INNOCENT_PHRASES,
  MINORS_WINDOW,
  NOT_PROFANE,
  type PhraseCategory,
  SEXUAL_WORDS,
  SLURS,
} from './deny-phrases.ts'
import { joinSpacedLetters, type NormalizedText, normalizeText } from './normalize-text.ts'
import type { DenyCategory } from './types.ts'

export type CreateDenyListParameters = {
  /** Added to the built-in phrases, same rules (lowercase words, no digits). */
  extraPhrases?: Partial<Record<Exclude<DenyCategory, 'profanity'>, readonly string[]>>
}

/** Returns the deny categories the text hits, sorted (empty when clean). */
export type DenyList = (text: string, normalized?: NormalizedText) => DenyCategory[]

export class DenyPhraseError extends Error {
  override name = 'DenyPhraseError'
}

type Metadata = { originalWord: EnglishProfaneWord }
type Hit = { kind: PhraseCategory | 'profanity'; start: number; end: number }

/**
 * Builds the deny-list once: obscenity's English dataset (slurs count as
 * harassment, the rest as profanity) plus the venue's phrase lists compiled into
 * one regular expression, plus DENY_PATTERNS. Nothing is compiled per call.
 *
 * @example
 * const deny = createDenyList()
 * deny('s3nd n u d e s') // ['sexual_solicitation']
 */
export const createDenyList = ({ extraPhrases = {} }: CreateDenyListParameters = {}): DenyList => {
  const dataset = new DataSet<Metadata>()
    .addAll(englishDataset)
    .removePhrasesIf(
      (phrase) => phrase.metadata !== undefined && NOT_PROFANE.has(phrase.metadata.originalWord),
    )
  const built = dataset.build()
  const profanity = new RegExpMatcher({
    ...built,
    whitelistedTerms: [...(built.whitelistedTerms ?? []), ...INNOCENT_PHRASES],
    ...englishRecommendedTransformers,
  })
  const mayMatch = anyTermPrefilter(profanity)
  const phrases = compilePhrases(extraPhrases)

  return function denyList(text, normalized = normalizeText(text)) {
    // Hyphens, underscores and runs of spaces read as one space ("kill-yourself"); line
    // breaks stay, since a heart is its fields joined by newlines and "im 16" may end one.
    const prepared = joinSpacedLetters(normalized.lower).replace(/[-_ \t\f\v\r]+/g, ' ')
    const hits: Hit[] = []
    const matches = mayMatch(prepared) ? profanity.getAllMatches(prepared) : []
    for (const match of matches) {
      const word = dataset.getPayloadWithPhraseMetadata(match).phraseMetadata?.originalWord
      const hit = { start: match.startIndex, end: match.endIndex + 1 }
      hits.push({ kind: word && SLURS.has(word) ? 'harassment' : 'profanity', ...hit })
      if (word && SEXUAL_WORDS.has(word)) hits.push({ kind: 'sexual_context', ...hit })
    }
    // Same length as `prepared`, so positions from both matchers line up.
    const unleeted = prepared.replace(LEET_RUN, unleet)
    for (const { index: start, matched } of findPhrases(phrases, unleeted)) {
      for (const kind of phrases.categories.get(phraseKey(matched)) ?? [])
        hits.push({ kind, start, end: start + matched.length })
    }
    const found = new Set<DenyCategory>()
    for (const { kind } of hits)
      if (kind !== 'school_age' && kind !== 'sexual_context') found.add(kind)
    for (const { category, pattern } of DENY_PATTERNS)
      if (pattern.test(prepared)) found.add(category)
    if (isMinorInSexualContext(hits)) found.add('minors')
    return [...found].sort()
  }
}

// Leetspeak (obscenity's table): a run of these stands for letters when a letter follows
// ("s3nd", "n00dz", "$end"), or when it is digits/$/@ right after a letter ("nud3$").
// "horny!" keeps its "!" and "im 16" its digits.
const LEET: Record<string, string> = {
  '@': 'a',
  '4': 'a',
  '(': 'c',
  '3': 'e',
  '6': 'g',
  '1': 'i',
  '!': 'i',
  '|': 'i',
  '/': 'l',
  '0': 'o',
  $: 's',
  '5': 's',
  '7': 't',
  '2': 'z',
}
const LEET_RUN = /[@4(361!|/0$572]+(?=[a-z])|(?<=[a-z])[@4361025$7]+/g
const unleet = (run: string) => run.replace(/./g, (char) => LEET[char] ?? char)

// Repeats and spaces vary between a phrase and its matches; the key drops both.
const phraseKey = (text: string) => text.replace(/ /g, '').replace(/(.)\1+/g, '$1')

const toPhrase = (raw: string): string => {
  const phrase = raw
    .toLowerCase()
    .replace(/['’]/g, '')
    .replace(/[-_\s]+/g, ' ')
    .trim()
  if (!/^[a-z]+(?: [a-z]+)*$/.test(phrase))
    throw new DenyPhraseError(`deny phrase must be lowercase words without digits: "${raw}"`)
  return phrase
}

export const compilePhrases = (extraPhrases: CreateDenyListParameters['extraPhrases'] = {}) => {
  const categories = new Map<string, PhraseCategory[]>()
  const alternatives = new Set<string>()
  const lists = Object.entries(DENY_PHRASES) as [PhraseCategory, readonly string[]][]
  const extras = extraPhrases as Partial<Record<PhraseCategory, readonly string[]>>
  for (const [category, builtIn] of lists) {
    for (const phrase of [...builtIn, ...(extras[category] ?? [])].map(toPhrase)) {
      const key = phraseKey(phrase)
      const known = categories.get(key) ?? []
      if (!known.includes(category)) categories.set(key, [...known, category])
      // Each letter matches a run of itself, each space is optional:
      // "sugar daddy" -> s+u+g+a+r+ ?d+a+d+y+ ("sugar daaaddy", "sugardaddy", "sugar dady").
      alternatives.add(
        phrase
          .split(' ')
          .map((word) => [...word.replace(/(.)\1+/g, '$1')].map((letter) => `${letter}+`).join(''))
          .join(' ?'),
      )
    }
  }
  // Longest first, so the most specific phrase at a position is the one reported.
  const sorted = [...alternatives].sort((a, b) => b.length - a.length)
  const pattern = new RegExp(`(?<![a-z0-9])(?=((?:${sorted.join('|')}))(?![a-z0-9]))`, 'g')
  // Every alternative starts with its first letter's run, so at a position only the
  // alternatives of that letter can match: the same alternation split by first letter
  // (order kept, so the same one wins) tries a twentieth of it at each word start.
  const byFirstLetter = new Map<string, RegExp>()
  for (const letter of new Set(sorted.map((alternative) => alternative[0] ?? ''))) {
    const own = sorted.filter((alternative) => alternative[0] === letter)
    byFirstLetter.set(letter, new RegExp(`(?=((?:${own.join('|')}))(?![a-z0-9]))`, 'y'))
  }
  return { pattern, byFirstLetter, categories }
}

const WORD_CHARACTER = /[a-z0-9]/

/**
 * The phrases in `text`, each with where it starts: what `text.matchAll(phrases.pattern)`
 * finds (a phrase at every position not preceded by a letter or digit, the
 * longest alternative first), without running the whole alternation everywhere.
 */
export const findPhrases = (
  { byFirstLetter }: Pick<ReturnType<typeof compilePhrases>, 'byFirstLetter'>,
  text: string,
) => {
  const found: Array<{ index: number; matched: string }> = []
  for (let index = 0; index < text.length; index++) {
    const own = byFirstLetter.get(text[index] ?? '')
    if (!own || (index > 0 && WORD_CHARACTER.test(text[index - 1] ?? ''))) continue
    own.lastIndex = index
    const match = own.exec(text)
    if (match) found.push({ index, matched: match[1] ?? '' })
  }
  return found
}

type MatcherInternals = {
  blacklistedTerms?: unknown
  blacklistMatcherTransformers?: unknown
  applyTransformers?: (input: string, transformers: unknown) => [number[], string]
}

/**
 * "Could obscenity find anything in this text?", exactly: its matcher runs
 * its ~120 term patterns one by one over the transformed text (about 40 us
 * a short text, the deny-list's largest cost); one alternation of the same
 * patterns over the same transformed text answers whether any of them
 * matches anywhere in about 2 us. No term matching means no matches (the
 * whitelist only removes matches), so the full pass runs only on texts the
 * alternation matches. Built from the matcher's own compiled terms; when
 * they are not what this expects (another obscenity version), every text
 * takes the full pass.
 */
export const anyTermPrefilter = (matcher: RegExpMatcher): ((text: string) => boolean) => {
  const fullPass = () => true
  const internals = matcher as unknown as MatcherInternals
  const { blacklistedTerms: terms, applyTransformers } = internals
  if (!Array.isArray(terms) || typeof applyTransformers !== 'function') return fullPass
  const sources: string[] = []
  for (const term of terms as Array<{ regExp?: unknown }>) {
    const { regExp } = term
    // Backreferences would renumber in one alternation; flags other than obscenity's own ("gs") would change a match.
    if (!(regExp instanceof RegExp) || regExp.flags !== 'gs' || /\\[1-9k]/.test(regExp.source))
      return fullPass
    sources.push(`(?:${regExp.source})`)
  }
  if (sources.length === 0) return fullPass
  const anyTerm = new RegExp(sources.join('|'), 's')
  return (text) =>
    anyTerm.test(applyTransformers.call(matcher, text, internals.blacklistMatcherTransformers)[1])
}

const isMinorInSexualContext = (hits: readonly Hit[]): boolean => {
  const sexual = hits.filter(
    (hit) => hit.kind === 'sexual_context' || hit.kind === 'sexual_solicitation',
  )
  return hits.some(
    (young) =>
      young.kind === 'school_age' &&
      sexual.some(
        (hit) => hit.start - young.end <= MINORS_WINDOW && young.start - hit.end <= MINORS_WINDOW,
      ),
  )
}

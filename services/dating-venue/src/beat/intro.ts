import { chatCompletion } from '../ask-matchmaker/chat-completion.ts'
import type { ChatSettings } from '../ask-matchmaker/chat-settings.ts'
import type { Heart } from '../heart/heart-schema.ts'
import { checkMany, type SafetyCheck } from '../safety/index.ts'

/** The line kept when no intro can be written or checked: it says nothing about either heart. */
export const PLACEHOLDER_INTRO =
  'The matchmaker paired the two of you this beat. Say hello, and tell each other what you hope to find here.'

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []

/**
 * True when `intro` repeats a run of `run` consecutive words from a heart:
 * the intro may name shared themes, never quote what a human wrote.
 */
export const quotesHeart = (intro: string, hearts: readonly string[], run = 6) => {
  const said = words(intro)
  const grams = new Set<string>()
  for (let i = 0; i + run <= said.length; i++) grams.add(said.slice(i, i + run).join(' '))
  return hearts.some((heart) => {
    const source = words(heart)
    for (let i = 0; i + run <= source.length; i++)
      if (grams.has(source.slice(i, i + run).join(' '))) return true
    return false
  })
}

const shortItems = (items: readonly string[] | undefined) =>
  (items ?? [])
    .map((item) => item.trim().toLowerCase())
    // A list item that is a sentence is prose, and prose is never quoted.
    .filter((item) => item.length > 0 && item.length <= 40 && item.split(/\s+/).length <= 4)

const shared = (a: readonly string[] | undefined, b: readonly string[] | undefined) => {
  const right = new Set(shortItems(b))
  return [...new Set(shortItems(a))].filter((item) => right.has(item)).slice(0, 3)
}

const list = (items: readonly string[]) =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`

/**
 * The venue's own opening line: built from the values and interests both
 * hearts list (short items only), never from their prose.
 */
export const composeIntro = (a: Heart | string, b: Heart | string): string => {
  if (typeof a === 'string' || typeof b === 'string') return PLACEHOLDER_INTRO
  const values = shared(a.values, b.values)
  const interests = shared(a.interests, b.interests)
  if (values.length === 0 && interests.length === 0) return PLACEHOLDER_INTRO
  const parts = [
    values.length > 0 ? `you both put ${list(values)} first` : undefined,
    interests.length > 0 ? `you share a love of ${list(interests)}` : undefined,
  ].filter(Boolean)
  const opener = parts.join(', and ')
  const question =
    interests.length > 0
      ? `What first drew each of you to ${interests[0]}?`
      : `Where did ${values[0]} come to matter most in your life?`
  return `The matchmaker noticed that ${opener}. ${question}`
}

/** Asks the configured chat model for the line; any failure is undefined (the caller falls back). */
export const generateIntro = (
  settings: ChatSettings,
  texts: readonly [string, string],
  fetchImpl: typeof fetch = fetch,
): Promise<string | undefined> =>
  chatCompletion(
    settings,
    [
      {
        role: 'system',
        content:
          'You are the matchmaker of a text-only adult dating venue. Write one warm opening line (at most two sentences) for two people you just paired, naming what they share. Never quote their words, never include names, contact details, places or numbers.',
      },
      { role: 'user', content: `First heart:\n${texts[0]}\n\nSecond heart:\n${texts[1]}` },
    ],
    { maxTokens: 120, maxChars: 600, fetchImpl },
  )

export type IntroResult = { body: string; source: 'model' | 'venue' | 'placeholder' }

/**
 * The lines that may open a couple, best first: the chat model's when
 * configured and it answers, then the venue's composition when the hearts
 * share something. A line that quotes a heart is never a candidate.
 */
export const introCandidates = async (
  { chat, fetchImpl }: { chat?: ChatSettings | undefined; fetchImpl?: typeof fetch },
  hearts: readonly [Heart | string, Heart | string],
  texts: readonly [string, string],
): Promise<IntroResult[]> => {
  const candidates: IntroResult[] = []
  if (chat) {
    const generated = await generateIntro(chat, texts, fetchImpl)
    if (generated) candidates.push({ body: generated, source: 'model' })
  }
  const composed = composeIntro(hearts[0], hearts[1])
  if (composed !== PLACEHOLDER_INTRO) candidates.push({ body: composed, source: 'venue' })
  return candidates.filter((candidate) => !quotesHeart(candidate.body, texts))
}

/**
 * The first candidate of each list the safety check allows, else the
 * placeholder. A candidate is checked only when every one before it in its
 * list was refused, as one pair at a time would: each round checks, in one
 * `checkMany`, the next undecided line of every list, each distinct text once.
 */
export const chooseIntros = async (
  safety: SafetyCheck,
  lists: ReadonlyArray<readonly IntroResult[]>,
): Promise<IntroResult[]> => {
  const allowed = new Map<string, boolean>()
  const chosen: Array<IntroResult | undefined> = lists.map(() => undefined)
  for (;;) {
    const asked = new Set<string>()
    for (const [index, list] of lists.entries()) {
      if (chosen[index]) continue
      const next = list.find((candidate) => allowed.get(candidate.body) !== false)
      if (!next) chosen[index] = { body: PLACEHOLDER_INTRO, source: 'placeholder' }
      else if (allowed.get(next.body)) chosen[index] = next
      else asked.add(next.body)
    }
    if (asked.size === 0) return chosen as IntroResult[]
    const texts = [...asked]
    const verdicts = await checkMany(safety, texts, { kind: 'intro' })
    for (const [index, text] of texts.entries())
      allowed.set(text, verdicts[index]!.verdict === 'allow')
  }
}

/**
 * The couple's first turn: the chat model's line when configured, else the
 * venue's composition; either must not quote a heart and must pass the
 * safety check, or the neutral placeholder is kept. The couple forms either way.
 */
export const writeIntro = async (
  {
    safety,
    chat,
    fetchImpl,
  }: { safety: SafetyCheck; chat?: ChatSettings | undefined; fetchImpl?: typeof fetch },
  hearts: readonly [Heart | string, Heart | string],
  texts: readonly [string, string],
): Promise<IntroResult> => {
  const [intro] = await chooseIntros(safety, [
    await introCandidates({ chat, fetchImpl }, hearts, texts),
  ])
  return intro!
}

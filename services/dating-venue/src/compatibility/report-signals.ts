import { accepts, compileFilter } from '../beat/filters.ts'
import type { Heart } from '../heart/heart-schema.ts'

/**
 * What a compatibility report may say about the other side: signals derived
 * from both docs, never the other side's words. Lists hold only short items
 * both hearts name (a value or interest the owner wrote too); intent and
 * pace are categories; logistics compares markets, not the prose.
 */
export type ReportSignals = {
  /** Cosine of the two hearts' embeddings (-1..1, two decimals); null when either has no vector. */
  similarity: number | null
  /** The hard filters of each side held against the other. */
  filters: { youAcceptThem: boolean; theyAcceptYou: boolean }
  sharedValues: string[]
  sharedInterests: string[]
  intent: { yours: IntentCategory; theirs: IntentCategory }
  pace: { yours: PaceCategory; theirs: PaceCategory }
  markets: { same: boolean; eitherRemote: boolean }
}

export type IntentCategory = 'casual' | 'dating' | 'long-term' | 'open' | 'unsure' | 'unstated'
export type PaceCategory = 'slow' | 'steady' | 'quick' | 'unstated'

export type ReportSide = {
  heart: Heart | string
  market: { home: string; active: string }
}

const INTENTS: ReadonlyArray<[IntentCategory, RegExp]> = [
  ['long-term', /\b(long[- ]?term|marriage|partner for life|serious)\b/i],
  ['casual', /\b(casual|fling|nothing serious)\b/i],
  ['open', /\b(open|poly|non[- ]?monogam)/i],
  ['unsure', /\b(unsure|not sure|see where)/i],
  ['dating', /\b(dating|date)\b/i],
]

const PACES: ReadonlyArray<[PaceCategory, RegExp]> = [
  ['slow', /\b(slow(ly)?|take (it|things) slow|no rush|patient)\b/i],
  ['quick', /\b(quick(ly)?|fast|soon|right away|asap)\b/i],
  ['steady', /\b(steady|step by step|in time)\b/i],
]

const categorize = <category extends string>(
  text: string | undefined,
  table: ReadonlyArray<[category, RegExp]>,
  none: category,
): category => table.find(([, pattern]) => text && pattern.test(text))?.[0] ?? none

const shortItems = (items: readonly string[] | undefined) =>
  new Set(
    (items ?? [])
      .map((item) => item.trim().toLowerCase())
      .filter((item) => item.length > 0 && item.length <= 40 && item.split(/\s+/).length <= 4),
  )

const sharedItems = (
  mine: readonly string[] | undefined,
  theirs: readonly string[] | undefined,
) => {
  const other = shortItems(theirs)
  return [...shortItems(mine)].filter((item) => other.has(item)).slice(0, 5)
}

const structured = (heart: Heart | string): Heart | undefined =>
  typeof heart === 'string' ? undefined : heart

const intentOf = (heart: Heart | string) => {
  const doc = structured(heart)
  return categorize(doc ? doc.relationship_intent : (heart as string), INTENTS, 'unstated')
}

const paceOf = (heart: Heart | string) => {
  const doc = structured(heart)
  const text = doc
    ? [doc.seeking, doc.vibe, doc.logistics].filter(Boolean).join(' ')
    : (heart as string)
  return categorize(text, PACES, 'unstated')
}

/** The signals of a pair, from the owner's side. */
export const reportSignals = (
  mine: ReportSide,
  theirs: ReportSide,
  similarity: number | null,
): ReportSignals => {
  const [myDoc, theirDoc] = [structured(mine.heart), structured(theirs.heart)]
  const [myFilter, theirFilter] = [compileFilter(myDoc?.prefs), compileFilter(theirDoc?.prefs)]
  return {
    similarity: similarity === null ? null : Math.round(similarity * 100) / 100,
    filters: {
      youAcceptThem: accepts(myFilter, theirFilter),
      theyAcceptYou: accepts(theirFilter, myFilter),
    },
    sharedValues: sharedItems(myDoc?.values, theirDoc?.values),
    sharedInterests: sharedItems(myDoc?.interests, theirDoc?.interests),
    intent: { yours: intentOf(mine.heart), theirs: intentOf(theirs.heart) },
    pace: { yours: paceOf(mine.heart), theirs: paceOf(theirs.heart) },
    markets: {
      same: mine.market.active === theirs.market.active || mine.market.home === theirs.market.home,
      eitherRemote: mine.market.active === 'remote' || theirs.market.active === 'remote',
    },
  }
}

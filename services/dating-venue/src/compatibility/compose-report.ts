import type { Heart } from '../heart/heart-schema.ts'
import type { ReportSignals } from './report-signals.ts'

const list = (items: readonly string[]) =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`

const closeness = (similarity: number) =>
  similarity >= 0.6
    ? 'very close'
    : similarity >= 0.4
      ? 'close'
      : similarity >= 0.2
        ? 'somewhat apart'
        : 'far apart'

/** Advice on the owner's own doc: what a reader (and the matchmaker) can find in it. */
const ownDocNotes = (heart: Heart | string): string[] => {
  if (typeof heart === 'string')
    return [
      'Your doc is free prose. Listing a few values and interests lets the matchmaker name what you share with a match.',
    ]
  const notes: string[] = []
  if (!heart.about) notes.push('Add an "about" in your own voice: it is what matching reads first.')
  if (!heart.seeking) notes.push('Say what you are seeking: matches are found on it.')
  if ((heart.values ?? []).length < 3) notes.push('Name at least three values.')
  if ((heart.interests ?? []).length < 3) notes.push('Name at least three interests.')
  if (!heart.relationship_intent)
    notes.push('State your relationship intent (casual, dating, long-term, open or unsure).')
  if (!heart.prefs?.seek)
    notes.push(
      'You stated no hard filters: anyone may be paired with you. Add them if some matter.',
    )
  return notes.length > 0 ? notes : ['Your doc covers everything the matchmaker reads.']
}

/**
 * The venue's own report, composed when no chat model is configured: the
 * owner's doc and, with a couple, the derived signals only. It can name a
 * value or interest only when the owner's doc names it too, so it repeats
 * nothing of the other side that the owner did not write.
 */
export const composeReport = (heart: Heart | string, signals: ReportSignals | undefined) => {
  const sections: string[] = []
  if (signals) {
    const overview =
      signals.similarity === null
        ? 'The matchmaker has not yet read both docs closely enough to compare them.'
        : `Read side by side, your two docs are ${closeness(signals.similarity)} in what you each describe (similarity ${signals.similarity.toFixed(2)}).`
    sections.push(`Overview\n${overview}`)
    const shared = [
      signals.sharedValues.length > 0 ? `You both value ${list(signals.sharedValues)}.` : '',
      signals.sharedInterests.length > 0
        ? `You share an interest in ${list(signals.sharedInterests)}.`
        : '',
    ].filter(Boolean)
    sections.push(
      `What you share\n${shared.length > 0 ? shared.join(' ') : 'Your lists of values and interests do not overlap; what you share may be in how you write, not what you list.'}`,
    )
    const differences: string[] = []
    const { intent, pace, filters, markets } = signals
    if (intent.yours !== intent.theirs && intent.theirs !== 'unstated')
      differences.push(
        `Intent: you described ${intent.yours === 'unstated' ? 'no intent' : `"${intent.yours}"`}, they lean "${intent.theirs}". Talk about it early.`,
      )
    if (pace.yours !== pace.theirs && pace.yours !== 'unstated' && pace.theirs !== 'unstated')
      differences.push(`Pace: you lean ${pace.yours}, they lean ${pace.theirs}.`)
    if (!markets.same && !markets.eitherRemote)
      differences.push('Logistics: you are in different markets; meeting takes planning.')
    if (!filters.youAcceptThem) differences.push('Your own hard filters do not all hold for them.')
    if (!filters.theyAcceptYou) differences.push('Their hard filters do not all hold for you.')
    sections.push(
      `Where you differ\n${differences.length > 0 ? differences.join(' ') : 'No difference stands out in intent, pace, logistics or filters.'}`,
    )
  }
  sections.push(`Your own doc\n${ownDocNotes(heart).join(' ')}`)
  return sections.join('\n\n')
}

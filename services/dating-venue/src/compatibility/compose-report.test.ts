import { describe, expect, it } from 'vitest'
import { quotesHeart } from '../beat/intro.ts'
import type { Heart } from '../heart/heart-schema.ts'
import { createSafetyCheck } from '../safety/index.ts'
import { checkReport } from './check-report.ts'
import { composeReport } from './compose-report.ts'
import { reportSignals } from './report-signals.ts'

const mine: Heart = {
  about: 'I restore old sailboats and read too much history on rainy weekends.',
  seeking: 'Someone patient to take things slow with, who likes the sea.',
  relationship_intent: 'long-term',
  values: ['honesty', 'curiosity', 'Kindness'],
  interests: ['sailing', 'history', 'baking'],
  prefs: { self: { age: 34, gender: 'man' }, seek: { genders: ['woman'], ageMin: 30 } },
}
const theirs: Heart = {
  about: 'Night owl violinist who collects vintage maps of forgotten harbour towns.',
  seeking: 'A partner who wants to move fast and travel soon.',
  relationship_intent: 'casual for now',
  values: ['kindness', 'honesty', 'adventure'],
  interests: ['sailing', 'violin'],
  prefs: { self: { age: 29, gender: 'woman' }, seek: { genders: ['man'], ageMax: 40 } },
}
const market = { home: 'bay_area', active: 'bay_area' }
const theirText = [theirs.about, theirs.seeking].join('\n')

describe('the composed compatibility report', () => {
  const signals = reportSignals(
    { heart: mine, market },
    { heart: theirs, market: { home: 'nyc', active: 'nyc' } },
    0.4567,
  )

  it('derives signals, never the other side’s words', () => {
    expect(signals).toEqual({
      similarity: 0.46,
      filters: { youAcceptThem: false, theyAcceptYou: true },
      sharedValues: ['honesty', 'kindness'],
      sharedInterests: ['sailing'],
      intent: { yours: 'long-term', theirs: 'casual' },
      pace: { yours: 'slow', theirs: 'quick' },
      markets: { same: false, eitherRemote: false },
    })
    const report = composeReport(mine, signals)
    expect(report).toContain('You both value honesty and kindness.')
    expect(report).toContain('Intent: you described "long-term", they lean "casual"')
    expect(report).toContain('Your own hard filters do not all hold for them.')
    expect(report).toContain('different markets')
    expect(quotesHeart(report, [theirText])).toBe(false)
    for (const word of ['violinist', 'harbour', 'maps', 'adventure', 'violin'])
      expect(report).not.toContain(word)
  })

  it('without a couple: advice on the owner’s own doc only', () => {
    const report = composeReport({ about: 'I like quiet mornings.' }, undefined)
    expect(report).not.toContain('What you share')
    expect(report).toContain('Say what you are seeking')
    expect(report).toContain('Name at least three values.')
  })

  it('the delivery check refuses quotes of the other heart, personal data and unsafe text', async () => {
    const safety = createSafetyCheck({})
    expect(await checkReport(safety, composeReport(mine, signals), theirText)).toEqual({ ok: true })
    expect(
      await checkReport(
        safety,
        'They wrote: vintage maps of forgotten harbour towns. Lovely.',
        theirText,
      ),
    ).toEqual({ ok: false, reason: 'quotes the other heart' })
    expect(
      await checkReport(safety, 'Write to her at someone@example.com today.', theirText),
    ).toEqual({
      ok: false,
      reason: 'personal data',
    })
    const down = createSafetyCheck({
      moderation: { url: 'http://127.0.0.1:9', model: 'm', timeoutMs: 200 },
    })
    expect(await checkReport(down, 'A warm and kind report.', undefined)).toEqual({
      ok: false,
      reason: 'check unavailable',
    })
  })
})

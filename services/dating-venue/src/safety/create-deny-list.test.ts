import { DataSet, englishDataset, englishRecommendedTransformers, RegExpMatcher } from 'obscenity'
import { describe, expect, test } from 'vitest'
import {
  anyTermPrefilter,
  compilePhrases,
  createDenyList,
  DenyPhraseError,
  findPhrases,
} from './create-deny-list.ts'
import { DENY_PHRASES } from './deny-phrases.ts'
import type { DenyCategory } from './types.ts'

const deny = createDenyList()

const CAUGHT: readonly [DenyCategory, string][] = [
  ['sexual_solicitation', 'send nudes'],
  ['sexual_solicitation', 's3nd n00dz'],
  ['sexual_solicitation', 's e n d  n u d e s'],
  ['sexual_solicitation', 'n.u.d.e.s'],
  ['sexual_solicitation', 'd.t.f?'],
  ['sexual_solicitation', '#sendnudes'],
  ['sexual_solicitation', 'you up? DTF?'],
  ['sexual_solicitation', 'looking for a sugar daddy'],
  ['sexual_solicitation', 'sugar daaaaddy wanted'],
  ['sexual_solicitation', 'hookup tonight?'],
  ['sexual_solicitation', 'FWB tonight, no strings'],
  ['sexual_solicitation', 'got any NSFW pics?'],
  ['sexual_solicitation', 'sеnd nudеs (Cyrillic e)'],
  ['sexual_solicitation', 'send\u200bnudes'],
  ['sexual_solicitation', "I'm so horny!"],
  ['sexual_solicitation', 'check my onlyfans'],
  ['minors', "I'm 16 and bored"],
  ['minors', 'im 15 lol'],
  ['minors', 'i am 17 years old'],
  ['minors', "I'm sixteen"],
  ['minors', 'barely legal'],
  ['minors', "I'm underage but mature"],
  ['minors', 'sexy teen pics'],
  ['minors', "I'm a teen"],
  ['minors', 'still in high school, looking for a hookup'],
  ['minors', '16f looking for fun'],
  ['minors', 'my age is 15'],
  ['minors', 'i m 1 6'],
  ['minors', "About: I'm 16\nInterests: skating"],
  ['money', 'send me money'],
  ['money', 'just cashapp me, $janedoe'],
  ['money', 'venmo me for the uber'],
  ['money', 'zelle me please'],
  ['money', 'paypal me'],
  ['money', 'buy me a gift card'],
  ['money', "let's invest in crypto with me"],
  ['money', 'a wire transfer to my account'],
  ['money', 'can you pay for my ticket'],
  ['money', 'send me $500'],
  ['money', 'send 200 usdt'],
  ['scam', "I'm a soldier overseas on a peacekeeping mission"],
  ['scam', 'my package is stuck at customs, I need the customs fee'],
  ['scam', 'join my investment platform'],
  ['scam', "let's move to WhatsApp"],
  ['scam', 'my account is frozen'],
  ['harassment', 'kill yourself'],
  ['harassment', 'k1ll y0urself'],
  ['harassment', 'kill-yourself'],
  ['harassment', 'KYS'],
  ['harassment', 'k y s'],
  ['harassment', 'I know where you live'],
  ['harassment', "i'll kill you"],
  ['harassment', 'you f@gg0t'],
  ['harassment', 'go die'],
  ['profanity', 'fuck this'],
  ['profanity', 'what a sh1t day'],
]

const CLEAN: readonly string[] = [
  'I teach chemistry at a high school and love my students',
  "I've loved skateboarding since my teens",
  'Sex-positive, queer, and looking for something real',
  "I'm in a same-sex household with two cats",
  'I make a mean cocktail and love Scunthorpe United',
  "I'm 34 and my son is 16",
  'I have a 15 year old daughter and a 12 year old son',
  "I'm a nurse at the children's hospital",
  'I send money home to my family every month',
  'I pay my bills on time and expect the same',
  'I like to invest in index funds and a bit of crypto',
  'I work on an oil rig two weeks on, two weeks off',
  "I'll shoot you a message when I land",
  "I'll beat you at chess",
  "I graduated summa cum laude and still can't cook",
  "I'm a bit anal about punctuality",
  'I love scat singing and Ella Fitzgerald',
  'Moby Dick is my favourite book',
  "I'm 15 minutes from downtown",
  "I'm 16 years into my career as an architect",
  'At 16 I started climbing',
  'My kids are 10 and 12',
  'Want kids someday; a little kinky too',
  'I assassinated my to-do list today',
  'Looking for a class act who loves bass guitar',
  "I'm a grape farmer and a rapper on weekends",
  'I grew up in Texas and moved to NYC for work',
  'Looking for someone kind, curious and a little bit weird',
  "I'm 18 and just moved out",
  "I'm 19, in college",
  'I have 3 kids aged 16, 14 and 9',
  "I'm looking for something casual, maybe a hookup",
  'My ex said I should kill myself; I am healing now',
  "I'm a widower; my late wife passed in 2019",
  'I love e.g. hiking, U.S.A. road trips and 7 a.m. runs',
]

describe('createDenyList', () => {
  test.each(CAUGHT)('catches %s: %j', (category, text) => {
    expect(deny(text)).toContain(category)
  })

  test.each(CLEAN)('passes %j', (text) => {
    expect(deny(text)).toEqual([])
  })

  test('behavior: categories are sorted and deduplicated', () => {
    expect(deny('send nudes, send nudes, and venmo me; kill yourself')).toEqual([
      'harassment',
      'money',
      'sexual_solicitation',
    ])
  })

  test('behavior: slurs count as harassment, other obscenity as profanity', () => {
    expect(deny('what a n1gger')).toEqual(['harassment'])
    expect(deny('holy shit that was fun')).toEqual(['profanity'])
  })

  test('behavior: extraPhrases extend a category, written naturally', () => {
    const extended = createDenyList({ extraPhrases: { scam: ["Let's go to my cousin's bank"] } })
    expect(extended('lets goooo to my cousins bank')).toEqual(['scam'])
    expect(deny('lets go to my cousins bank')).toEqual([])
  })

  test('behavior: the one-pass prefilter lets through every text obscenity matches', () => {
    const built = new DataSet().addAll(englishDataset).build()
    const matcher = new RegExpMatcher({ ...built, ...englishRecommendedTransformers })
    const mayMatch = anyTermPrefilter(matcher)
    // Every word of obscenity's English list (its containers are not public API).
    const { containers } = englishDataset as unknown as {
      containers: Array<{ metadata?: { originalWord: string } }>
    }
    const words = containers.flatMap((container) => container.metadata?.originalWord ?? [])
    const leet = (word: string) => word.replace(/e/g, '3').replace(/i/g, '1').replace(/o/g, '0')
    const texts = [
      ...words.flatMap((word) => [word, `oh ${leet(word)}!`, `${word.split('').join(' ')} day`]),
      ...CAUGHT.map(([, text]) => text),
      ...CLEAN,
    ]
    let matched = 0
    for (const text of texts) {
      const prepared = text.toLowerCase()
      if (matcher.getAllMatches(prepared).length === 0) continue
      matched++
      expect(mayMatch(prepared), text).toBe(true)
    }
    expect(matched).toBeGreaterThan(words.length)
    // Not the fallback that sends every text to the full pass.
    expect(mayMatch('a warm about section for my dating doc')).toBe(false)
  })

  test('behavior: phrases found by first letter are exactly what the whole alternation finds', () => {
    const phrases = compilePhrases({ scam: ["let's go to my cousin's bank"] })
    const all = Object.values(DENY_PHRASES).flat()
    const texts = [
      ...CAUGHT.map(([, text]) => text),
      ...CLEAN,
      ...all.flatMap((phrase) => [
        phrase,
        `oh ${phrase.replace(/ /g, '')}!`,
        `x${phrase} and ${phrase.replace(/([aeiou])/g, '$1$1')} again`,
        `${phrase} ${phrase}`,
      ]),
      'lets goooo to my cousins bank',
    ].map((text) => text.toLowerCase().replace(/['’]/g, ''))
    let found = 0
    for (const text of texts) {
      const reference = [...text.matchAll(phrases.pattern)].map((match) => ({
        index: match.index,
        matched: match[1] ?? '',
      }))
      found += reference.length
      expect(findPhrases(phrases, text), text).toEqual(reference)
    }
    expect(found).toBeGreaterThan(all.length * 3)
  })

  test('error: a phrase with digits or symbols is refused at build time', () => {
    expect(() => createDenyList({ extraPhrases: { money: ['send 100'] } })).toThrow(DenyPhraseError)
  })
})

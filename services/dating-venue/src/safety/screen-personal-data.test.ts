import { describe, expect, test } from 'vitest'
import { screenPersonalData } from './screen-personal-data.ts'
import type { PersonalDataKind } from './types.ts'

// Contact-sharing attempts, each with the one kind it must report. The numbers are
// fictional (555) or from numbering-plan examples; addresses are documentation ones.
const CAUGHT: readonly [string, PersonalDataKind][] = [
  ['call me at 555-867-5309', 'phone'],
  ['text me +44 7911 123456', 'phone'],
  ['my number is (415) 555-2671', 'phone'],
  ['4155552671', 'phone'],
  ['five five five eight six seven five three oh nine', 'phone'],
  ['fifty five five, eight six seven, fifty three oh nine', 'phone'],
  ['5 5 5 - 8 6 7 - 5 3 0 9', 'phone'],
  ['5.5.5.8.6.7.5.3.0.9', 'phone'],
  ['555 eight six seven 5309', 'phone'],
  ['call me 867 5309', 'phone'],
  ['867-5309 is my cell', 'phone'],
  ['ring me on +49 30 901820', 'phone'],
  ['+49 30 901820', 'phone'],
  ['Berlin: (030) 901820', 'phone'],
  ['call me on 020 7946 0018', 'phone'],
  ['５５５８６７５３０９ (fullwidth digits)', 'phone'],
  ['555\u200b867\u200b5309 (zero-width spaces)', 'phone'],
  ['555–867–5309 with en dashes', 'phone'],
  ['①②③④⑤⑥⑦⑧⑨⓪ (circled digits)', 'phone'],
  ['5️⃣5️⃣5️⃣8️⃣6️⃣7️⃣5️⃣3️⃣0️⃣9️⃣ (keycap emoji)', 'phone'],
  ['my number starts with 555 and ends with 8675309', 'phone'],
  ['jane.doe@gmail.com', 'email'],
  ['jane at gmail dot com', 'email'],
  ['jane [at] gmail [dot] com', 'email'],
  ['jane(at)gmail(dot)com', 'email'],
  ['jane @ gmail . com', 'email'],
  ['write to jane at gmail', 'email'],
  ['my gmail is janedoe92', 'email'],
  ['janedoe at protonmail dot me', 'email'],
  ['j a n e @ g m a i l . c o m', 'email'],
  ['ｊａｎｅ＠ｇｍａｉｌ．ｃｏｍ', 'email'],
  ['find me @jane_doe', 'handle'],
  ['my insta is jane.doe', 'handle'],
  ['insta: jane_doe92', 'handle'],
  ['add me on snap', 'handle'],
  ['hmu on insta', 'handle'],
  ['snap me ;)', 'handle'],
  ['my telegram: janedoe', 'handle'],
  ['tg @janedoe', 'handle'],
  ["let's talk on whatsapp", 'handle'],
  ['dm me on discord', 'handle'],
  ['my snap handle is janedoe', 'handle'],
  ['I post as u/janedoe', 'handle'],
  ['s.n.a.p: janedoe', 'handle'],
  ['IG ➡️ jane.doe', 'handle'],
  ['TeLeGrAm: @JaneDoe', 'handle'],
  ["I'm jane_doe92 on the gram", 'handle'],
  ['find me on ig, same name as here', 'handle'],
  ['check out janedoe.com', 'link'],
  ['https://example.com/me', 'link'],
  ['janedoe dot com', 'link'],
  ['www.onlyfans.com/jane', 'link'],
  ['t.me/janedoe', 'link'],
  ['instagram.com/janedoe', 'link'],
  ['Jane.Com has my photos', 'link'],
  ['my wallet 0x52908400098527886E0F7030069857D2E4169EE7', 'wallet'],
  ['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'wallet'],
  ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', 'wallet'],
  ['send sol to 7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU', 'wallet'],
  ['janedoe.eth', 'wallet'],
  ['tip me at jane dot eth', 'wallet'],
]

// Ordinary dating prose with numbers, "at", "dot", platform names and dotted words.
const CLEAN: readonly string[] = [
  'I love 90s hip hop',
  `I'm 5'9" and age 34`,
  'born in 1990',
  'my top 3 books are Dune, Emma and Beloved',
  'I work 9-5 but weekends are mine',
  "I'm at the beach most weekends",
  'dot-com era nostalgia',
  'I lived through the dot com bubble',
  'I run 10k races',
  'email is my least favourite thing',
  'I have two kids, 8 and 12 years old',
  'My 5k PR is 22:30 and my 10k is 47:10',
  'Between 2015-2019 I lived in Berlin',
  'Between 2015-2019 I lived in Berlin. Call me old-fashioned, but I write letters.',
  'I drive a 2012 Honda with 150000 miles',
  'I scored 1450 on my SAT back in 2008',
  'I worked at Google for 6 years',
  "I'm a PM at Yahoo",
  'I love Instagram photography and film cameras',
  'My insta is mostly food pics',
  'I love line dancing; catch me at line dancing on Thursdays',
  'I studied at UCLA. In my free time I paint',
  'Ideal first date: coffee at 10am, walk by 2pm',
  'one or two drinks is my limit',
  'Twenty years in tech, thirty countries, one heart',
  'I code in ASP.NET and Node.js',
  "I'm @home most nights with a book",
  'Brunch @ 11 on Sundays is sacred',
  'Travel.Life is too short not to',
  "My zip is 94110 and I'm 29",
  'Bay Area native, 415 forever',
  'My snap judgment is usually right',
  'Bumble and Hinge never worked for me, so here I am',
  'My hobbies: chess (1800 elo), climbing (V5), and jazz',
  'In 2020 I turned 30 and in 2021 I moved to NYC',
  'My Discord server is about board games',
  "I'm on Discord a lot for gaming",
  'Find me at the climbing gym',
  'Text me when you land',
  'Catch me on the dance floor',
  'I like Twitter/X drama',
  'Room 1204, 12th floor, 1200 sq ft apartment',
  'Ask me about my 10,000 hour violin practice and 2,500 km bike tours',
  'I have 3 kids aged 16, 14 and 9',
  'I love e.g. hiking, U.S.A. road trips and 7 a.m. runs',
]

describe('screenPersonalData', () => {
  test.each(CAUGHT)('catches %j as %s', (text, kind) => {
    expect(screenPersonalData(text)).toEqual({ found: [kind] })
  })

  test.each(CLEAN)('passes %j', (text) => {
    expect(screenPersonalData(text)).toEqual({ found: [] })
  })

  test('behavior: kinds are sorted and deduplicated, values never returned', () => {
    const text = 'jane@example.com or jane2@example.com, +44 7911 123456, insta: jane_doe'
    const result = screenPersonalData(text)
    expect(result).toEqual({ found: ['email', 'handle', 'phone'] })
    expect(JSON.stringify(result)).not.toContain('jane')
  })

  test('behavior: a heart of several lines is screened line by line', () => {
    expect(screenPersonalData('About: runner\nInterests: 1990s film\n2000s pop')).toEqual({
      found: [],
    })
    expect(screenPersonalData('About: runner\nSnap me, it is faster')).toEqual({
      found: ['handle'],
    })
  })
})

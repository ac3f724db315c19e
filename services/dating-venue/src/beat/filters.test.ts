import fc from 'fast-check'
import { expect, test } from 'vitest'
import type { Prefs } from '../heart/heart-schema.ts'
import { allowedCompiledPair, allowedPair, compileFilter } from './filters.ts'

type Row = [string, Prefs | undefined, Prefs | undefined, boolean]

// One row per rule and case; each pair is also checked in the other order (symmetry).
const table: Row[] = [
  ['nothing stated', undefined, undefined, true],
  ['empty prefs', {}, { self: {}, seek: {} }, true],
  // seek.genders
  [
    'genders: listed and matched',
    { seek: { genders: ['woman'] } },
    { self: { gender: 'woman' } },
    true,
  ],
  [
    'genders: case and spaces ignored',
    { seek: { genders: [' Woman'] } },
    { self: { gender: 'WOMAN ' } },
    true,
  ],
  [
    'genders: listed and not matched',
    { seek: { genders: ['woman'] } },
    { self: { gender: 'man' } },
    false,
  ],
  [
    'genders: other did not state a gender',
    { seek: { genders: ['woman'] } },
    { self: { age: 30 } },
    true,
  ],
  ['genders: other has no prefs at all', { seek: { genders: ['woman'] } }, undefined, true],
  ['genders: empty list means any', { seek: { genders: [] } }, { self: { gender: 'man' } }, true],
  [
    'genders: one of several',
    { seek: { genders: ['man', 'non-binary'] } },
    { self: { gender: 'Non-Binary' } },
    true,
  ],
  // seek.ageMin / ageMax
  ['age: inside the range', { seek: { ageMin: 25, ageMax: 35 } }, { self: { age: 30 } }, true],
  ['age: bounds are inclusive', { seek: { ageMin: 30, ageMax: 30 } }, { self: { age: 30 } }, true],
  ['age: below ageMin', { seek: { ageMin: 25 } }, { self: { age: 24 } }, false],
  ['age: above ageMax', { seek: { ageMax: 35 } }, { self: { age: 36 } }, false],
  [
    'age: other did not state an age',
    { seek: { ageMin: 25, ageMax: 35 } },
    { self: { gender: 'man' } },
    true,
  ],
  [
    'age: no implicit window when no range is stated',
    { self: { age: 20 } },
    { self: { age: 70 } },
    true,
  ],
  // seek.languages
  [
    'languages: one shared',
    { seek: { languages: ['English', 'French'] } },
    { self: { languages: ['french'] } },
    true,
  ],
  [
    'languages: none shared',
    { seek: { languages: ['English'] } },
    { self: { languages: ['Spanish', 'German'] } },
    false,
  ],
  [
    'languages: other did not state languages',
    { seek: { languages: ['English'] } },
    { self: { gender: 'woman' } },
    true,
  ],
  [
    'languages: other stated an empty list',
    { seek: { languages: ['English'] } },
    { self: { languages: [] } },
    true,
  ],
  [
    'languages: empty seek means any',
    { seek: { languages: [] } },
    { self: { languages: ['Spanish'] } },
    true,
  ],
  // seek.ethnicities
  [
    'ethnicities: listed and matched',
    { seek: { ethnicities: ['Asian'] } },
    { self: { ethnicity: 'asian' } },
    true,
  ],
  [
    'ethnicities: listed and not matched',
    { seek: { ethnicities: ['Asian'] } },
    { self: { ethnicity: 'Black' } },
    false,
  ],
  [
    'ethnicities: other did not state one',
    { seek: { ethnicities: ['Asian'] } },
    { self: {} },
    true,
  ],
  [
    'ethnicities: empty list is open to all',
    { seek: { ethnicities: [] } },
    { self: { ethnicity: 'Black' } },
    true,
  ],
  // seek.dealbreakers.substances
  [
    'substances: a dealbreaker excludes',
    { seek: { dealbreakers: { substances: ['smoker'] } } },
    { self: { substances: 'smoker' } },
    false,
  ],
  [
    'substances: other values pass',
    { seek: { dealbreakers: { substances: ['smoker'] } } },
    { self: { substances: 'social' } },
    true,
  ],
  [
    'substances: other did not state',
    { seek: { dealbreakers: { substances: ['smoker', 'social'] } } },
    { self: { kids: 'no' } },
    true,
  ],
  [
    'substances: empty dealbreakers',
    { seek: { dealbreakers: { substances: [] } } },
    { self: { substances: 'smoker' } },
    true,
  ],
  // self.kids has no seek counterpart: never a filter
  ['kids: never filters', { self: { kids: 'want' } }, { self: { kids: 'no' } }, true],
  // Mutual: one side accepting is not enough
  [
    'mutual: A accepts B but B rejects A',
    { self: { gender: 'man', age: 40 }, seek: { genders: ['woman'] } },
    { self: { gender: 'woman' }, seek: { ageMax: 35 } },
    false,
  ],
  [
    'mutual: both accept',
    { self: { gender: 'man', age: 30 }, seek: { genders: ['woman'] } },
    { self: { gender: 'woman' }, seek: { genders: ['man'], ageMax: 35 } },
    true,
  ],
  [
    'mutual: both state everything and match',
    {
      self: {
        gender: 'woman',
        age: 31,
        ethnicity: 'Latina',
        languages: ['Spanish'],
        substances: 'none',
      },
      seek: {
        genders: ['woman'],
        ageMin: 28,
        ageMax: 40,
        languages: ['spanish'],
        ethnicities: ['latina'],
        dealbreakers: { substances: ['smoker'] },
      },
    },
    {
      self: {
        gender: 'Woman',
        age: 35,
        ethnicity: 'latina',
        languages: ['English', 'Spanish'],
        substances: 'social',
      },
      seek: {
        genders: ['Woman'],
        ageMin: 30,
        languages: ['Spanish'],
        dealbreakers: { substances: ['smoker'] },
      },
    },
    true,
  ],
]

test.each(table)('rule: %s', (_, a, b, expected) => {
  expect(allowedPair(a, b)).toBe(expected)
  expect(allowedPair(b, a)).toBe(expected)
  expect(allowedCompiledPair(compileFilter(a), compileFilter(b))).toBe(expected)
})

const word = fc.constantFrom(
  'woman',
  'Woman ',
  'man',
  'MAN',
  'non-binary',
  'english',
  'Spanish',
  'x',
)
const list = fc.array(word, { maxLength: 3 })
const substance = fc.constantFrom('none' as const, 'social' as const, 'smoker' as const)
const age = fc.integer({ min: 18, max: 80 })
const self = fc.record(
  {
    gender: word,
    age,
    ethnicity: word,
    languages: list,
    kids: fc.constantFrom('open' as const, 'want' as const, 'have' as const, 'no' as const),
    substances: substance,
  },
  { requiredKeys: [] },
)
const seek = fc.record(
  {
    genders: list,
    ageMin: age,
    ageMax: age,
    languages: list,
    ethnicities: list,
    dealbreakers: fc.record(
      { substances: fc.array(substance, { maxLength: 3 }) },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
)
const prefs: fc.Arbitrary<Prefs | undefined> = fc.option(
  fc.record({ self, seek }, { requiredKeys: [] }),
  { nil: undefined },
)

test('property: symmetric', () => {
  fc.assert(
    fc.property(prefs, prefs, (a, b) => {
      expect(allowedPair(a, b)).toBe(allowedPair(b, a))
    }),
    { numRuns: 2000 },
  )
})

const selfKeys = ['gender', 'age', 'ethnicity', 'languages', 'kids', 'substances'] as const
// Whether the other side stated a seek that can act on this self attribute (kids: none can).
const seeksOn = (seek: Prefs['seek'], key: (typeof selfKeys)[number]) =>
  ({
    gender: seek?.genders !== undefined,
    age: seek?.ageMin !== undefined || seek?.ageMax !== undefined,
    ethnicity: seek?.ethnicities !== undefined,
    languages: seek?.languages !== undefined,
    kids: false,
    substances: seek?.dealbreakers?.substances !== undefined,
  })[key]

test('property: stating one more self attribute can only exclude through a stated seek of the other side', () => {
  fc.assert(
    fc.property(prefs, prefs, self, fc.constantFrom(...selfKeys), (a, b, extra, key) => {
      if (b?.self?.[key] !== undefined || extra[key] === undefined) return
      const more: Prefs = { ...b, self: { ...b?.self, [key]: extra[key] } }
      const before = allowedPair(a, b)
      const after = allowedPair(a, more)
      // Monotone: saying more about yourself never makes you allowed where you were not.
      if (!before) expect(after).toBe(false)
      // And it changes nothing unless the other side stated a seek on that attribute.
      if (!seeksOn(a?.seek, key)) expect(after).toBe(before)
    }),
    { numRuns: 3000 },
  )
})

test('behavior: compiled filters are shared for empty prefs and normalise once', () => {
  expect(compileFilter(undefined)).toBe(compileFilter({}))
  const compiled = compileFilter({ self: { gender: ' Man ' }, seek: { genders: ['WOMAN', ' '] } })
  expect(compiled.gender).toBe('man')
  expect([...(compiled.seekGenders ?? [])]).toEqual(['woman'])
  expect(compileFilter({ seek: { genders: ['  '] } }).open).toBe(true)
})

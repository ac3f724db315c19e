import fc from 'fast-check'
import { expect, test } from 'vitest'
import type { Prefs } from '../heart/heart-schema.ts'
import { allowedPair } from './filters.ts'
import { pairApproximate, pairExact } from './pairing.ts'
import { referencePairs } from './pairing-reference.ts'

const normalise = (values: number[]) => {
  const norm = Math.hypot(...values)
  return Float32Array.from(values, (v) => (norm > 0 ? v / norm : 0))
}

const genders = fc.constantFrom('woman', 'man', 'non-binary')
const languages = fc.constantFrom('english', 'Spanish', 'french')
const prefs: fc.Arbitrary<Prefs | undefined> = fc.option(
  fc.record(
    {
      self: fc.record(
        {
          gender: genders,
          age: fc.integer({ min: 18, max: 60 }),
          languages: fc.array(languages, { maxLength: 2 }),
          substances: fc.constantFrom('none' as const, 'social' as const, 'smoker' as const),
        },
        { requiredKeys: [] },
      ),
      seek: fc.record(
        {
          genders: fc.array(genders, { maxLength: 2 }),
          ageMin: fc.integer({ min: 18, max: 40 }),
          ageMax: fc.integer({ min: 40, max: 60 }),
          languages: fc.array(languages, { maxLength: 2 }),
          dealbreakers: fc.record({ substances: fc.constant(['smoker' as const]) }),
        },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: [] },
  ),
  { nil: undefined, freq: 3 },
)

/**
 * Small random venues. Vectors are drawn from a small palette part of the
 * time, so exact similarity ties (shared vectors) are common and the
 * lower-id tie-break is exercised; ids are unique but not in arrival order.
 */
const venue = (withDuplicates: boolean) =>
  fc.integer({ min: 2, max: 8 }).chain((d) => {
    const vector = fc
      .array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: d, maxLength: d })
      .filter((values) => Math.hypot(...values) > 0.1)
      .map(normalise)
    return fc
      .record({
        palette: fc.array(vector, { minLength: 1, maxLength: 4 }),
        people: fc.array(
          fc.record({
            vector: withDuplicates ? fc.oneof(vector, fc.nat({ max: 3 })) : vector,
            prefs,
          }),
          { maxLength: 30 },
        ),
        ids: fc.uniqueArray(fc.integer({ min: 1, max: 10_000 }), { minLength: 30, maxLength: 30 }),
      })
      .map(({ palette, people, ids }) =>
        people.map(({ vector, prefs }, i) => ({
          id: ids[i]!,
          vector: typeof vector === 'number' ? palette[vector % palette.length]! : vector,
          prefs,
        })),
      )
  })

test('property: exact pairing equals the literal round-by-round rule, for any k', () => {
  fc.assert(
    fc.property(venue(true), fc.constantFrom(1, 2, 3, 32), (candidates, k) => {
      const expected = referencePairs(candidates).pairs
      expect(pairExact(candidates, { k })).toEqual(expected)
    }),
    { numRuns: 400 },
  )
})

test('property: every pair is allowed and the matching is maximal under the filters', () => {
  fc.assert(
    fc.property(venue(true), (candidates) => {
      const pairs = pairExact(candidates, { k: 2 })
      const byId = new Map(candidates.map((c) => [c.id, c]))
      for (const [a, b] of pairs) {
        expect(a).toBeLessThan(b)
        expect(allowedPair(byId.get(a)!.prefs, byId.get(b)!.prefs)).toBe(true)
      }
      // No two unpaired personas may be allowed together: the rounds stop only when none is left.
      const paired = new Set(pairs.flat())
      const left = candidates.filter((c) => !paired.has(c.id))
      for (const x of left)
        for (const y of left) if (x !== y) expect(allowedPair(x.prefs, y.prefs)).toBe(false)
    }),
    { numRuns: 300 },
  )
})

test('property: approximate pairing equals the rule on small venues (the graph sees everyone)', () => {
  // Distinct vectors: a graph over many identical points can be searched incompletely.
  fc.assert(
    fc.property(venue(false), fc.constantFrom(1, 3, 48), (candidates, k) => {
      expect(pairApproximate(candidates, { k })).toEqual(referencePairs(candidates).pairs)
    }),
    { numRuns: 150, seed: 20_261_121 },
  )
})

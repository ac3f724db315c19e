import fc from 'fast-check'
import { expect, test } from 'vitest'
import type { Prefs } from '../heart/heart-schema.ts'
import { allowedPair } from './filters.ts'
import { type AdjacentCandidate, adjacentPairs } from './pairing-adjacent.ts'

const woman: Prefs = { self: { gender: 'woman' } }
const man: Prefs = { self: { gender: 'man' } }
const seeksWomen: Prefs = { seek: { genders: ['woman'] } }

test('default: neighbours in arrival order pair; an odd one out is left', () => {
  expect(adjacentPairs([{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }, { id: 5 }])).toEqual([
    [1, 2],
    [3, 4],
  ])
  expect(adjacentPairs([])).toEqual([])
})

test('behavior: a persona skips those it is not mutually allowed with, who stay for the next', () => {
  // 1 seeks women: 2 (a man) is skipped, 3 pairs with 1; then 2 pairs with 4.
  const candidates = [
    { id: 1, prefs: seeksWomen },
    { id: 2, prefs: man },
    { id: 3, prefs: woman },
    { id: 4 },
  ]
  expect(adjacentPairs(candidates)).toEqual([
    [1, 3],
    [2, 4],
  ])
})

test('behavior: allowed nowhere stays unpaired; ids are ordered within a pair', () => {
  const candidates = [{ id: 9, prefs: seeksWomen }, { id: 8, prefs: man }, { id: 4 }]
  expect(adjacentPairs(candidates)).toEqual([[4, 9]])
})

test('behavior: `allowed` by id vetoes a pair (called lower id first)', () => {
  const allowed = (a: number, b: number) => !(a === 1 && b === 2)
  expect(adjacentPairs([{ id: 2 }, { id: 1 }, { id: 3 }], { allowed })).toEqual([[2, 3]])
})

const prefs: fc.Arbitrary<Prefs | undefined> = fc.option(
  fc.record(
    {
      self: fc.record({ gender: fc.constantFrom('woman', 'man') }, { requiredKeys: [] }),
      seek: fc.record(
        { genders: fc.array(fc.constantFrom('woman', 'man'), { maxLength: 1 }) },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: [] },
  ),
  { nil: undefined },
)

/** The rule as written, quadratic and plain. */
const reference = (candidates: AdjacentCandidate[]) => {
  const paired = new Set<number>()
  const pairs: [number, number][] = []
  candidates.forEach((a, i) => {
    if (paired.has(i)) return
    const j = candidates.findIndex(
      (b, j) => j > i && !paired.has(j) && allowedPair(a.prefs, b.prefs),
    )
    if (j < 0) return
    paired.add(i).add(j)
    const b = candidates[j]!.id
    pairs.push(a.id < b ? [a.id, b] : [b, a.id])
  })
  return pairs.sort((p, q) => p[0] - q[0])
}

test('property: follows the rule; the result is maximal (no two unpaired are allowed together)', () => {
  fc.assert(
    fc.property(fc.array(prefs, { maxLength: 40 }), (all) => {
      const candidates = all.map((p, i) => ({ id: 1000 - i, prefs: p }))
      const pairs = adjacentPairs(candidates)
      expect(pairs).toEqual(reference(candidates))
      const paired = new Set(pairs.flat())
      const left = candidates.filter((c) => !paired.has(c.id))
      for (const x of left)
        for (const y of left) if (x !== y) expect(allowedPair(x.prefs, y.prefs)).toBe(false)
    }),
    { numRuns: 500 },
  )
})

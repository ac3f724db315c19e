import { seededRandom } from '@agents/service-kit'
import { expect, test } from 'vitest'
import type { Prefs } from '../heart/heart-schema.ts'
import { pairApproximate, pairCandidates, pairExact } from './pairing.ts'
import type { PairingStats } from './pairing-engine.ts'
import { type PairingCandidate, PairingInputError } from './pairing-matrix.ts'
import { referencePairs } from './pairing-reference.ts'

/** A unit vector in the plane at `degrees`: similarities are cosines of angle differences. */
const at = (degrees: number) => {
  const radians = (degrees * Math.PI) / 180
  return new Float32Array([Math.cos(radians), Math.sin(radians), 0])
}
const persona = (id: number, degrees: number, prefs?: Prefs): PairingCandidate => ({
  id,
  vector: at(degrees),
  prefs,
})

// A's best is B (cos 30°), B's and C's best is each other (cos 20°), D's best is A (cos 40°).
const A = persona(1, 0)
const B = persona(2, 30)
const C = persona(3, 50)
const D = persona(4, -40)

/** Greedy one-sided matching in arrival order: each unpaired persona takes its best unpaired one. */
const oneSided = (candidates: PairingCandidate[]) => {
  const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, v, k) => sum + v * b[k]!, 0)
  const open = new Set(candidates)
  const pairs: [number, number][] = []
  for (const a of candidates) {
    if (!open.has(a)) continue
    open.delete(a)
    const [b] = [...open].sort((x, y) => dot(a.vector, y.vector) - dot(a.vector, x.vector))
    if (!b) continue
    open.delete(b)
    pairs.push([Math.min(a.id, b.id), Math.max(a.id, b.id)])
  }
  return pairs.sort((p, q) => p[0] - q[0])
}

const both = [pairExact, pairApproximate] as const

test('default: two personas pair; fewer than two give nothing', () => {
  for (const pair of both) {
    expect(pair([A, B])).toEqual([[1, 2]])
    expect(pair([A])).toEqual([])
    expect(pair([])).toEqual([])
  }
})

test('behavior: only mutual pairs form, where one-sided greedy would take A–B', () => {
  const candidates = [A, B, C, D]
  expect(oneSided(candidates)).toEqual([
    [1, 2],
    [3, 4],
  ])
  const mutual = [
    [1, 4],
    [2, 3],
  ]
  for (const pair of both) expect(pair(candidates)).toEqual(mutual)
  // The rule's own rounds: B–C first (A's best B is not mutual), then A–D on the remainder.
  expect(referencePairs(candidates).rounds).toEqual([[[2, 3]], [[1, 4]]])
})

test('behavior: rounds repeat on the remainder until no mutual pair is left', () => {
  // A chain on a line: each round pairs the closest mutual pair; the rest re-pair.
  const line = [0, 10, 25, 45, 70, 100, 135].map((degrees, i) => persona(i + 1, degrees / 2))
  const expected = referencePairs(line)
  expect(expected.rounds.length).toBeGreaterThan(1)
  for (const pair of both) expect(pair(line)).toEqual(expected.pairs)
})

test('behavior: a mutually best but disallowed pair never forms; the next allowed best is used', () => {
  const man: Prefs = { self: { gender: 'man' } }
  // C only seeks women, B is a man: B–C is mutually best but not allowed.
  const candidates = [A, persona(2, 30, man), persona(3, 50, { seek: { genders: ['woman'] } }), D]
  for (const pair of both)
    expect(pair(candidates)).toEqual([
      [1, 2],
      [3, 4],
    ])
})

test('behavior: one side accepting is not enough (B accepts C, C rejects B)', () => {
  const candidates = [
    A,
    persona(2, 30, { self: { age: 50 }, seek: { ageMax: 60 } }),
    persona(3, 50, { self: { age: 30 }, seek: { ageMax: 40 } }),
    D,
  ]
  for (const pair of both) expect(pair(candidates)).toEqual(referencePairs(candidates).pairs)
  expect(pairExact(candidates)).not.toContainEqual([2, 3])
})

test('behavior: a persona nobody is allowed with stays unpaired', () => {
  const loner = persona(9, 31, { seek: { genders: ['woman'] } })
  const men = [
    persona(1, 0, { self: { gender: 'man' } }),
    persona(2, 30, { self: { gender: 'man' } }),
  ]
  for (const pair of both) expect(pair([...men, loner])).toEqual([[1, 2]])
})

test('behavior: ties go to the lower id, whatever the arrival order', () => {
  // 5, 3 and 9 share a vector; 3's best is 5 (lower id than 9), 5's best is 3.
  const same = at(10)
  const candidates = [9, 5, 3].map((id) => ({ id, vector: same }))
  for (const pair of both) {
    expect(pair([...candidates, persona(7, 80)])).toEqual([
      [3, 5],
      [7, 9],
    ])
    expect(pair([persona(7, 80), ...[...candidates].reverse()])).toEqual([
      [3, 5],
      [7, 9],
    ])
  }
})

test('behavior: `allowed` by id excludes pairs that courted before (called lower id first)', () => {
  const seen: [number, number][] = []
  const allowed = (a: number, b: number) => {
    seen.push([a, b])
    return !(a === 2 && b === 3)
  }
  for (const pair of both)
    expect(pair([A, B, C, D], { allowed })).toEqual([
      [1, 2],
      [3, 4],
    ])
  expect(seen.every(([a, b]) => a < b)).toBe(true)
})

test('behavior: exhausted lists are re-queried, so a small k changes nothing', () => {
  const ring = Array.from({ length: 40 }, (_, i) => persona(100 - i, (i * 137) % 360))
  const expected = referencePairs(ring).pairs
  for (const k of [1, 2, 5, 32]) {
    const stats = { requeried: 0 } as PairingStats
    expect(pairExact(ring, { k, onStats: (s) => Object.assign(stats, s) })).toEqual(expected)
    if (k === 1) expect(stats.requeried).toBeGreaterThan(0)
    expect(pairApproximate(ring, { k })).toEqual(expected)
  }
})

test('behavior: deterministic; exact pairing does not depend on arrival order', () => {
  const random = seededRandom(7)
  const candidates = Array.from({ length: 300 }, (_, i) => ({
    id: i + 1,
    vector: unit(Array.from({ length: 16 }, () => random() - 0.5)),
  }))
  const shuffled = candidates
    .map((candidate) => ({ candidate, key: random() }))
    .sort((a, b) => a.key - b.key)
    .map(({ candidate }) => candidate)
  const exact = pairExact(candidates)
  expect(pairExact(shuffled)).toEqual(exact)
  // The graph depends on insertion order, so approximate pairing promises only repeatability.
  const approximate = pairApproximate(candidates)
  expect(pairApproximate(candidates)).toEqual(approximate)
  expect(approximate).toEqual(exact)
})

test('behavior: pairs are [lower id, higher id], sorted by the lower id', () => {
  const pairs = pairCandidates([persona(50, 0), persona(7, 1), persona(30, 90), persona(1, 91)])
  expect(pairs).toEqual([
    [1, 30],
    [7, 50],
  ])
})

test('behavior: pairCandidates picks exact up to exactUpTo, approximate beyond', () => {
  const modes: string[] = []
  const onStats = (stats: PairingStats) => modes.push(stats.mode)
  pairCandidates([A, B, C], { exactUpTo: 3, onStats })
  pairCandidates([A, B, C], { exactUpTo: 2, onStats })
  expect(modes).toEqual(['exact', 'approximate'])
})

test('error: duplicate ids, mixed dimensions and non-finite components are refused', () => {
  expect(() => pairExact([A, { ...B, id: 1 }])).toThrow(PairingInputError)
  expect(() => pairExact([A, { id: 2, vector: new Float32Array(4) }])).toThrow(PairingInputError)
  expect(() => pairExact([A, { id: 2, vector: new Float32Array([Number.NaN, 0, 0]) }])).toThrow(
    PairingInputError,
  )
})

function unit(values: number[]) {
  const norm = Math.hypot(...values)
  return Float32Array.from(values, (v) => v / norm)
}

import { seededRandom } from '@agents/service-kit'
import { expect, test } from 'vitest'
import type { Prefs } from '../heart/heart-schema.ts'
import { pairApproximate, pairExact } from './pairing.ts'
import type { PairingCandidate } from './pairing-matrix.ts'

/** 512-d vectors around 50 centres with noise as large as the centre (same-cluster cosine ~0.5). */
const clustered = (count: number, seed: number): PairingCandidate[] => {
  const random = seededRandom(seed)
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
  const centres = Array.from({ length: 50 }, () => Float32Array.from({ length: 512 }, gaussian))
  const genders = ['woman', 'man', 'non-binary']
  return Array.from({ length: count }, (_, i) => {
    const centre = centres[Math.floor(random() * centres.length)]!
    const vector = Float32Array.from(centre, (c) => c + gaussian())
    const norm = Math.hypot(...vector)
    for (let k = 0; k < vector.length; k++) vector[k]! /= norm
    // Sparse filters: most state none.
    const prefs: Prefs | undefined =
      random() < 0.6
        ? undefined
        : {
            self: { gender: genders[Math.floor(random() * 3)]! },
            ...(random() < 0.5 ? { seek: { genders: [genders[Math.floor(random() * 3)]!] } } : {}),
          }
    return { id: i + 1, vector, prefs }
  })
}

test('behavior: approximate pairing agrees with exact on 5,000 clustered 512-d personas (>= 98 %)', () => {
  const candidates = clustered(5000, 42)
  const exact = pairExact(candidates)
  const approximate = pairApproximate(candidates)
  const key = ([a, b]: [number, number]) => `${a}:${b}`
  const approximateKeys = new Set(approximate.map(key))
  const shared = exact.filter((pair) => approximateKeys.has(key(pair))).length
  const agreement = shared / exact.length
  console.info(
    `approximate vs exact: ${(100 * agreement).toFixed(2)} % of ${exact.length} exact pairs identical (approximate formed ${approximate.length})`,
  )
  expect(agreement).toBeGreaterThanOrEqual(0.98)
  expect(Math.abs(approximate.length - exact.length)).toBeLessThanOrEqual(exact.length * 0.01)
}, 180_000)

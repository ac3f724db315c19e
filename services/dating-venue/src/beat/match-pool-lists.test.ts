import { seededRandom } from '@agents/service-kit'
import { expect, test } from 'vitest'
import { createMatchPool } from './match-pool.ts'
import { pairApproximate, pairExact } from './pairing.ts'

// The kept neighbour lists: made as personas arrive past exact search's reach, so a beat starts
// from them instead of searching the graph for everyone.
const DIM = 16
const personas = (count: number, seed: number, firstId = 1) => {
  const random = seededRandom(seed)
  return Array.from({ length: count }, (_, i) => {
    const vector = Float32Array.from({ length: DIM }, () => random() - 0.5)
    const norm = Math.hypot(...vector)
    return { id: firstId + i, vector: vector.map((value) => value / norm) }
  })
}

const exactNearest = (all: ReturnType<typeof personas>, id: number) => {
  const me = all.find((p) => p.id === id)!
  let best = { id: 0, score: -2 }
  for (const other of all) {
    if (other.id === id) continue
    let score = 0
    for (let k = 0; k < DIM; k++) score += me.vector[k]! * other.vector[k]!
    if (score > best.score) best = { id: other.id, score }
  }
  return best.id
}

test('behavior: past exactUpTo every persona arriving gets a list of its nearest, best first', () => {
  const all = personas(600, 3)
  const pool = createMatchPool({ modelId: 'm', exactUpTo: 200, threads: 1 })
  pool.add(all.slice(0, 150))
  // Below exact search's reach nothing is built: a small venue pays no graph.
  expect(pool.neighbours(1)).toBeUndefined()
  pool.add(all.slice(150, 400))
  pool.add(all.slice(400))
  let right = 0
  for (const { id } of all) {
    const list = pool.neighbours(id)!
    expect(list.ids.length).toBe(48)
    expect(list.ids).not.toContain(id)
    for (let r = 1; r < list.scores.length; r++)
      expect(list.scores[r]!).toBeLessThanOrEqual(list.scores[r - 1]!)
    expect(list.floor).toBeLessThanOrEqual(list.scores[list.scores.length - 1]!)
    if (list.ids[0] === exactNearest(all, id)) right++
  }
  expect(right / all.length).toBeGreaterThan(0.97)
})

test('behavior: a newcomer closer than a persona’s listed neighbours enters its list; one who leaves loses its list', () => {
  const all = personas(400, 5)
  const pool = createMatchPool({ modelId: 'm', exactUpTo: 100, threads: 1 })
  pool.add(all)
  const target = all[17]!
  // Almost the same vector: closer to the target than anyone listed.
  const twin = Float32Array.from(target.vector, (v, k) => v + (k === 0 ? 1e-3 : 0))
  const norm = Math.hypot(...twin)
  pool.add([{ id: 9999, vector: twin.map((v) => v / norm) }])
  expect(pool.neighbours(target.id)!.ids[0]).toBe(9999)
  expect(pool.neighbours(9999)!.ids[0]).toBe(target.id)
  pool.remove([9999])
  expect(pool.neighbours(9999)).toBeUndefined()
  expect(pool.has(9999)).toBe(false)
})

test('behavior: pairing from the kept lists equals exact pairing where the graph sees everyone', () => {
  for (const seed of [11, 12, 13]) {
    const all = personas(500, seed)
    const pool = createMatchPool({ modelId: 'm', exactUpTo: 0, threads: 1 })
    pool.add(all)
    expect(pool.neighbours(all[0]!.id)).toBeDefined()
    expect(pairApproximate(all, { pool, threads: 1 })).toEqual(pairExact(all))
  }
})

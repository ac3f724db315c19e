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

test('behavior: a neighbour pushed out of a full list raises its floor, so no row scoring above it goes unlisted', () => {
  const all = personas(200, 9)
  const pool = createMatchPool({ modelId: 'm', exactUpTo: 50, threads: 1, keptNeighbours: 4 })
  pool.add(all)
  const target = all[3]!
  // Copies: a list is a view of the pool's arrays, which the next offers change.
  const before = Float32Array.from(pool.neighbours(target.id)!.scores)
  // Four personas nearer than any listed: each pushes the last one out.
  const near = [1, 2, 3, 4].map((step) => {
    const vector = Float32Array.from(target.vector, (v, k) => v + (k === step ? 1e-3 * step : 0))
    const norm = Math.hypot(...vector)
    return { id: 5000 + step, vector: vector.map((v) => v / norm) }
  })
  pool.add(near)
  const after = pool.neighbours(target.id)!
  expect([...after.ids].sort()).toEqual([5001, 5002, 5003, 5004])
  // All four listed before were pushed out: the best of them is the floor now.
  expect(after.floor).toBe(before[0]!)
})

test('behavior: personas added later (a takeover’s bulk) get the graph and lists at settle, or at the first search', () => {
  const all = personas(600, 21)
  const pool = createMatchPool({ modelId: 'm', exactUpTo: 100, threads: 1 })
  pool.add(all.slice(0, 300), { later: true })
  pool.add(all.slice(300), { later: true })
  expect(pool.size).toBe(600)
  expect(pool.neighbours(all[0]!.id)).toBeUndefined()
  pool.settle()
  for (const { id } of all) expect(pool.neighbours(id)?.ids.length).toBe(48)

  // With the graph there, a later slice waits for the next search, which finds it.
  const more = personas(50, 22, 10_000)
  pool.add(more, { later: true })
  expect(pool.neighbours(10_000)).toBeUndefined()
  const found = pool.search(more[7]!.vector, 1)
  expect(found.keys[0]).toBe(10_007)
  expect(pool.neighbours(10_007)?.ids.length).toBe(48)
})

test('behavior: settling a pool below exactUpTo builds nothing', () => {
  const pool = createMatchPool({ modelId: 'm', exactUpTo: 1000, threads: 1 })
  pool.add(personas(200, 23), { later: true })
  pool.settle()
  expect(pool.neighbours(1)).toBeUndefined()
  expect(pool.size).toBe(200)
})

test('behavior: the pool takes persona ids only, which its lists hold in 32 bits', () => {
  const pool = createMatchPool({ modelId: 'm', exactUpTo: 10, threads: 1 })
  const [one] = personas(1, 5)
  expect(() => pool.add([{ id: 2 ** 31, vector: one!.vector }])).toThrow(/not a persona id/)
  expect(() => pool.add([{ id: 1.5, vector: one!.vector }])).toThrow(/not a persona id/)
  expect(pool.size).toBe(0)
  // The largest serial PostgreSQL gives is listed as itself.
  const all = personas(40, 6, 2 ** 31 - 40)
  pool.add(all)
  expect(pool.neighbours(2 ** 31 - 1)!.ids).toContain(exactNearest(all, 2 ** 31 - 1))
})

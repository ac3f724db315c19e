import { mkdtempSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { seededRandom } from '@agents/service-kit'
import { afterEach, expect, test } from 'vitest'
import { createMatchPool } from './match-pool.ts'

const DIM = 16
const personas = (count: number, seed: number) => {
  const random = seededRandom(seed)
  return Array.from({ length: count }, (_, i) => {
    const vector = Float32Array.from({ length: DIM }, () => random() - 0.5)
    const norm = Math.hypot(...vector)
    return { id: 1000 + i, vector: vector.map((value) => value / norm) }
  })
}
const dirs: string[] = []
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'match-pool-unit-'))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

test('behavior: a snapshot is loaded whole by the same model, and dropped for another', () => {
  const dir = freshDir()
  const pool = createMatchPool({ modelId: 'model-a', dir })
  const entries = personas(40, 1)
  pool.add(entries)
  pool.search(entries[0]!.vector, 5) // builds the graph, so it is saved too
  pool.save()
  expect(readdirSync(dir).sort()).toEqual([
    'match-pool.json',
    'match-pool.lists',
    'match-pool.usearch',
    'match-pool.vectors',
  ])

  const again = createMatchPool({ modelId: 'model-a', dir })
  expect(again.loadedFrom).toBe('snapshot')
  expect(again.size).toBe(40)
  expect(Array.from(again.vectorOf(1000)!)).toEqual(Array.from(entries[0]!.vector))
  expect(again.search(entries[3]!.vector, 1).keys[0]).toBe(1003)
  // The kept lists come back with it: a restart's first beat searches nobody again.
  for (const { id } of entries) {
    const saved = pool.neighbours(id)!
    const loaded = again.neighbours(id)!
    expect(Array.from(loaded.ids)).toEqual(Array.from(saved.ids))
    expect(Array.from(loaded.scores)).toEqual(Array.from(saved.scores))
    expect(loaded.floor).toBe(saved.floor)
  }
  expect(again.neighbours(entries[0]!.id)!.ids.length).toBe(39)

  const warnings: string[] = []
  const other = createMatchPool({ modelId: 'model-b', dir, onWarning: (m) => warnings.push(m) })
  expect(other.loadedFrom).toBe('empty')
  expect(other.size).toBe(0)
  expect(warnings).toEqual([
    'match pool snapshot dropped; the pool refills from the stored vectors',
  ])
  expect(readdirSync(dir)).toEqual([])
})

test('behavior: lists saved with another K are left out, the graph and vectors kept', () => {
  const dir = freshDir()
  const pool = createMatchPool({ modelId: 'm', dir, keptNeighbours: 8 })
  const entries = personas(40, 5)
  pool.add(entries)
  pool.build()
  pool.save()
  expect(pool.neighbours(1000)!.ids.length).toBe(8)
  const wider = createMatchPool({ modelId: 'm', dir, keptNeighbours: 16 })
  expect(wider.loadedFrom).toBe('snapshot')
  expect(wider.size).toBe(40)
  expect(wider.neighbours(1000)).toBeUndefined()
  const same = createMatchPool({ modelId: 'm', dir, keptNeighbours: 8 })
  expect(Array.from(same.neighbours(1000)!.ids)).toEqual(Array.from(pool.neighbours(1000)!.ids))
})

test('behavior: a damaged lists file drops the snapshot whole', () => {
  const dir = freshDir()
  const pool = createMatchPool({ modelId: 'm', dir })
  pool.add(personas(40, 6))
  pool.build()
  pool.save()
  truncateSync(join(dir, 'match-pool.lists'), 100)
  const warnings: string[] = []
  const again = createMatchPool({ modelId: 'm', dir, onWarning: (m) => warnings.push(m) })
  expect(again.loadedFrom).toBe('empty')
  expect(again.size).toBe(0)
  expect(again.neighbours(1000)).toBeUndefined()
  expect(warnings).toHaveLength(1)
  expect(readdirSync(dir)).toEqual([])
})

test('behavior: removed personas are never found again, also after the graph is rebuilt', () => {
  // One thread: a parallel build races, and a graph with three quarters of it removed
  // can then miss a live node (once in a few dozen runs). One build is the same every run.
  const pool = createMatchPool({ modelId: 'm', threads: 1 })
  const entries = personas(200, 2)
  pool.add(entries)
  const before = pool.search(entries[0]!.vector, 3)
  expect(before.keys[0]).toBe(1000)
  // First fewer than half (the graph keeps them, marked removed), then past half (the graph is
  // let go of and rebuilt from the live vectors by the next search).
  for (const [round, upTo] of [
    ['removed', 90],
    ['rebuilt', 150],
  ] as const) {
    const gone = entries.slice(0, upTo).map((entry) => entry.id)
    expect(pool.remove(gone), round).toBe(upTo === 90 ? 90 : 60)
    expect(pool.remove(gone), round).toBe(0)
    const found = pool.search(entries[0]!.vector, 120)
    const ids = Array.from(found.keys.subarray(0, found.counts[0]!))
    expect(ids.length, round).toBe(200 - upTo)
    expect(
      ids.every((id) => id >= 1000 + upTo),
      round,
    ).toBe(true)
  }
  expect(pool.diff([1000, 1150, 1199, 5000])).toEqual({
    stale: entries.slice(151, 199).map((entry) => entry.id),
    missing: [1000, 5000],
  })
})

test('behavior: a graph left mostly removed is rebuilt with everyone in it, newcomers too, before it is saved', () => {
  const dir = freshDir()
  const pool = createMatchPool({ modelId: 'm', dir, threads: 1 })
  const entries = personas(201, 3)
  pool.add(entries.slice(0, 200))
  pool.build()
  // Three quarters removed: the graph is let go of at once and rebuilt when next needed.
  pool.remove(entries.slice(0, 150).map((entry) => entry.id))
  const newcomer = entries[200]!
  pool.add([newcomer])
  pool.save()
  const loaded = createMatchPool({ modelId: 'm', dir, threads: 1 })
  expect(loaded.loadedFrom).toBe('snapshot')
  expect(loaded.size).toBe(51)
  for (const id of [1150, 1199, newcomer.id]) expect(loaded.neighbours(id)?.ids.length).toBe(48)
  expect(loaded.search(newcomer.vector, 1).keys[0]).toBe(newcomer.id)
})

test('behavior: erasing takes the vector out and drops the snapshot; a persona not in the pool changes nothing', () => {
  const dir = freshDir()
  const pool = createMatchPool({ modelId: 'm', dir })
  pool.add(personas(10, 3))
  pool.save()
  pool.erase(4242)
  // No beat searched it: the vectors alone are saved, no graph.
  expect(readdirSync(dir).sort()).toEqual(['match-pool.json', 'match-pool.vectors'])
  pool.erase(1004)
  expect(pool.has(1004)).toBe(false)
  expect(pool.vectorOf(1004)).toBeUndefined()
  expect(readdirSync(dir)).toEqual([])
  expect(pool.size).toBe(9)
})

test('behavior: a snapshot that cannot be written is a warning, not a failed beat', () => {
  const blocked = join(freshDir(), 'not-a-directory')
  writeFileSync(blocked, 'a file where the directory should be')
  const warnings: string[] = []
  const pool = createMatchPool({ modelId: 'm', dir: blocked, onWarning: (m) => warnings.push(m) })
  pool.add(personas(5, 4))
  expect(() => pool.save()).not.toThrow()
  expect(warnings).toEqual(['match pool snapshot not written; a restart rebuilds the pool'])
  expect(pool.size).toBe(5)
})

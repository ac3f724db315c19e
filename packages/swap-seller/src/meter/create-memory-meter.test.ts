import { expect, test } from 'vitest'
import { createMemoryMeter } from './create-memory-meter.ts'

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms))

test('default: remaining falls as usage is recorded, per match, never below zero', async () => {
  const meter = createMemoryMeter()
  expect(await meter.remaining('a', 1_000)).toBe(1_000)
  await meter.record('a', 600)
  expect(await meter.remaining('a', 1_000)).toBe(400)
  expect(await meter.remaining('b', 1_000)).toBe(1_000)
  await meter.record('a', 600)
  expect(await meter.remaining('a', 1_000)).toBe(0)
})

test('error: usage must be a non-negative integer', async () => {
  const meter = createMemoryMeter()
  await expect(meter.record('a', -1)).rejects.toThrow(RangeError)
  await expect(meter.record('a', 1.5)).rejects.toThrow(RangeError)
})

test('behavior: exclusive runs one match at a time, other matches in parallel', async () => {
  const meter = createMemoryMeter()
  const events: string[] = []
  const task = (name: string, ms: number) => async () => {
    events.push(`${name} start`)
    await sleep(ms)
    events.push(`${name} end`)
    return name
  }
  const results = await Promise.all([
    meter.exclusive('m', task('m1', 30)),
    meter.exclusive('m', task('m2', 1)),
    meter.exclusive('other', task('o1', 1)),
  ])
  expect(results).toEqual(['m1', 'm2', 'o1'])
  expect(events).toEqual(['m1 start', 'o1 start', 'o1 end', 'm1 end', 'm2 start', 'm2 end'])
})

test('behavior: a failed task does not block the match', async () => {
  const meter = createMemoryMeter()
  const failed = meter.exclusive('m', async () => {
    throw new Error('boom')
  })
  const next = meter.exclusive('m', async () => 'next')
  await expect(failed).rejects.toThrow('boom')
  await expect(next).resolves.toBe('next')
})

test('behavior: check-then-record inside exclusive cannot overspend', async () => {
  const meter = createMemoryMeter()
  const spend = () =>
    meter.exclusive('m', async () => {
      if ((await meter.remaining('m', 1_000)) < 400) return false
      await sleep(5)
      await meter.record('m', 400)
      return true
    })
  const served = await Promise.all(Array.from({ length: 10 }, spend))
  expect(served.filter(Boolean)).toHaveLength(2)
  expect(await meter.remaining('m', 1_000)).toBe(200)
})

import { expect, it } from 'vitest'
import { coalesce } from './coalesce.ts'

it('the calls of one turn go together; calls arriving during a batch go together next; a failed batch fails its calls only', async () => {
  const batches: string[][] = []
  let release = () => {}
  const run = coalesce(async (inputs: string[]) => {
    batches.push(inputs)
    if (batches.length === 1) await new Promise<void>((done) => (release = done))
    if (inputs.includes('boom')) throw new Error('the statement failed')
    return inputs.map((input) => input.toUpperCase())
  })
  const first = [run('a'), run('b')]
  await new Promise((turn) => setImmediate(turn))
  expect(batches).toEqual([['a', 'b']])
  const waiting = [run('c'), run('d')]
  await new Promise((turn) => setImmediate(turn))
  expect(batches).toEqual([['a', 'b']])
  release()
  expect(await Promise.all(first)).toEqual(['A', 'B'])
  expect(await Promise.all(waiting)).toEqual(['C', 'D'])
  expect(batches).toEqual([
    ['a', 'b'],
    ['c', 'd'],
  ])
  await expect(run('boom')).rejects.toThrow('the statement failed')
  expect(await run('e')).toBe('E')
})

import { expect, it } from 'vitest'
import { coalesce } from './coalesce.ts'

it('a call alone goes at once; calls arriving during a batch go together next; a failed batch fails its calls only', async () => {
  const batches: string[][] = []
  let release = () => {}
  const run = coalesce(async (inputs: string[]) => {
    batches.push(inputs)
    if (batches.length === 1) await new Promise<void>((done) => (release = done))
    if (inputs.includes('boom')) throw new Error('the statement failed')
    return inputs.map((input) => input.toUpperCase())
  })
  const first = run('a')
  const waiting = [run('b'), run('c')]
  expect(batches).toEqual([['a']])
  release()
  expect(await first).toBe('A')
  expect(await Promise.all(waiting)).toEqual(['B', 'C'])
  expect(batches).toEqual([['a'], ['b', 'c']])
  await expect(run('boom')).rejects.toThrow('the statement failed')
  expect(await run('d')).toBe('D')
})

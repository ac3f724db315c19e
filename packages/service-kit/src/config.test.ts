import { expect, test } from 'vitest'
import { z } from 'zod'
import { ConfigError, loadConfig, Port } from './config.ts'

const Schema = z.object({
  PORT: Port.default(3001),
  SECRET: z.string().min(8),
  MODE: z.enum(['a', 'b']),
})

test('default: defaults apply, empty strings count as unset, the result is frozen', () => {
  const config = loadConfig(Schema, { PORT: '', SECRET: 'long-enough', MODE: 'a' })
  expect(config).toEqual({ PORT: 3001, SECRET: 'long-enough', MODE: 'a' })
  expect(Object.isFrozen(config)).toBe(true)
})

test('behavior: every problem is reported at once', () => {
  try {
    loadConfig(Schema, { PORT: '70000', SECRET: 'short', MODE: 'c' })
    expect.unreachable()
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    const problems = (error as ConfigError).problems
    expect(problems).toHaveLength(3)
    expect(problems.join()).toMatch(/PORT/)
    expect(problems.join()).toMatch(/SECRET/)
    expect(problems.join()).toMatch(/MODE/)
  }
})

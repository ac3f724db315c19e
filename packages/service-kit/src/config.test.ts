import { expect, test } from 'vitest'
import { z } from 'zod'
import {
  ConfigError,
  databaseOptions,
  loadConfig,
  Port,
  refineDatabase,
  serviceConfigShape,
} from './config.ts'

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

const Service = z
  .object(serviceConfigShape({ port: 3000, dataDir: './data/t' }))
  .superRefine(refineDatabase)
const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig(Service, env)
    return []
  } catch (error) {
    return (error as ConfigError).problems
  }
}

test('database: a transaction pooler needs the direct URL; neither setting means anything without DATABASE_URL', () => {
  const pooled = 'postgres://app@pooler.example:6543/db'
  const direct = 'postgres://app@db.example:5432/db'
  expect(loadConfig(Service, {}).DATABASE_POOL_MODE).toBe('session')
  expect(problemsOf({ DATABASE_URL: pooled, DATABASE_POOL_MODE: 'transaction' })).toEqual([
    expect.stringMatching(/^DATABASE_DIRECT_URL: required with DATABASE_POOL_MODE=transaction/),
  ])
  expect(problemsOf({ DATABASE_POOL_MODE: 'transaction' })).toEqual([
    expect.stringMatching(/^DATABASE_POOL_MODE: transaction needs DATABASE_URL/),
  ])
  expect(problemsOf({ DATABASE_DIRECT_URL: direct })).toEqual([
    expect.stringMatching(/^DATABASE_DIRECT_URL: set without DATABASE_URL/),
  ])
  expect(problemsOf({ DATABASE_URL: pooled, DATABASE_POOL_MODE: 'statement' })).toEqual([
    expect.stringMatching(/^DATABASE_POOL_MODE: /),
  ])
  const config = loadConfig(Service, {
    DATABASE_URL: pooled,
    DATABASE_POOL_MODE: 'transaction',
    DATABASE_DIRECT_URL: direct,
  })
  expect(databaseOptions(config)).toEqual({
    url: pooled,
    dataDir: './data/t',
    poolMax: 20,
    poolMode: 'transaction',
    directUrl: direct,
  })
})

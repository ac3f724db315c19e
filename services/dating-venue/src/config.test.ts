import { ConfigError } from '@agents/service-kit'
import { expect, it } from 'vitest'
import { readConfig } from './config.ts'

const problemsOf = (env: Record<string, string>) => {
  try {
    readConfig(env)
    return []
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    return error.problems
  }
}
const baseUrlProblems = (env: Record<string, string>) =>
  problemsOf(env).filter((problem) => problem.startsWith('BASE_URL:'))

it("refuses to start in production without BASE_URL: 402s, documents, invite links and the identity check's callback are built on it", () => {
  // Production requires other settings too; only BASE_URL's problems are looked at here.
  expect(baseUrlProblems({ NODE_ENV: 'production' })).toEqual([
    'BASE_URL: required in production: every absolute URL the service writes is built on it, never on the request',
  ])
  expect(baseUrlProblems({ NODE_ENV: 'production', BASE_URL: 'https://venue.example' })).toEqual([])
  expect(baseUrlProblems({ NODE_ENV: 'production', BASE_URL: 'http://venue.example' })).toEqual([
    'BASE_URL: expected https in production (http only on a loopback host)',
  ])
  expect(baseUrlProblems({ NODE_ENV: 'test' })).toEqual([])
})

it('takes BASE_URL as an http(s) origin, without a trailing slash', () => {
  expect(readConfig({ BASE_URL: 'https://venue.example/' }).BASE_URL).toBe('https://venue.example')
  expect(baseUrlProblems({ BASE_URL: 'https://venue.example/venue' })).toEqual([
    'BASE_URL: expected an origin only (scheme, host, port): no path, query, fragment or credentials',
  ])
})

it('refuses to start in production without VENUE_ERASURE_KEY, and takes only 32 bytes in base64', () => {
  const erasureKeyProblems = (env: Record<string, string>) =>
    problemsOf(env).filter((problem) => problem.startsWith('VENUE_ERASURE_KEY:'))
  expect(erasureKeyProblems({ NODE_ENV: 'production' })).toEqual([
    'VENUE_ERASURE_KEY: required in production: erased payments are recognised by it on every replica, across restarts',
  ])
  const key = Buffer.alloc(32, 1).toString('base64')
  expect(erasureKeyProblems({ NODE_ENV: 'production', VENUE_ERASURE_KEY: key })).toEqual([])
  expect(erasureKeyProblems({ VENUE_ERASURE_KEY: Buffer.alloc(16).toString('base64') })).toEqual([
    'VENUE_ERASURE_KEY: expected 32 bytes, base64',
  ])
  expect(erasureKeyProblems({ NODE_ENV: 'test' })).toEqual([])
})

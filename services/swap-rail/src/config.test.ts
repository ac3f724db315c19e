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

// Everything else production requires, so that BASE_URL is the only problem left.
const PRODUCTION = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://rail@db.internal:5432/rail',
  SWAP_GRANT_SIGNING_KEY: 'a key (its form is checked when the signer is built)',
}

it("refuses to start in production without BASE_URL: the 402s' resources, the discovery document and the grants' issuer are built on it", () => {
  expect(problemsOf(PRODUCTION)).toEqual([
    'BASE_URL: required in production: every absolute URL the service writes is built on it, never on the request',
  ])
  expect(problemsOf({ ...PRODUCTION, BASE_URL: 'https://rail.example' })).toEqual([])
  expect(problemsOf({ ...PRODUCTION, BASE_URL: 'http://rail.example' })).toEqual([
    'BASE_URL: expected https in production (http only on a loopback host)',
  ])
})

it('takes BASE_URL as an http(s) origin, without a trailing slash', () => {
  expect(readConfig({ BASE_URL: 'https://rail.example/' }).BASE_URL).toBe('https://rail.example')
  expect(problemsOf({ BASE_URL: 'https://rail.example/rail' })).toEqual([
    'BASE_URL: expected an origin only (scheme, host, port): no path, query, fragment or credentials',
  ])
  expect(problemsOf({ BASE_URL: 'ftp://rail.example' })).toEqual([
    'BASE_URL: expected an http(s) URL',
  ])
})

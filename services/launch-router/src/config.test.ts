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

it('refuses to start in production without BASE_URL: llms.txt would name the router by its listening address', () => {
  expect(problemsOf({ NODE_ENV: 'production' })).toEqual([
    'BASE_URL: required in production: every absolute URL the service writes is built on it, never on the request',
  ])
  expect(problemsOf({ NODE_ENV: 'production', BASE_URL: 'https://router.example' })).toEqual([])
})

it('takes BASE_URL as an http(s) origin, https in production unless loopback', () => {
  expect(readConfig({ BASE_URL: 'https://router.example/' }).BASE_URL).toBe(
    'https://router.example',
  )
  expect(readConfig({ BASE_URL: 'http://127.0.0.1:3001' }).BASE_URL).toBe('http://127.0.0.1:3001')
  expect(problemsOf({ NODE_ENV: 'production', BASE_URL: 'http://router.example' })).toEqual([
    'BASE_URL: expected https in production (http only on a loopback host)',
  ])
  expect(problemsOf({ NODE_ENV: 'production', BASE_URL: 'http://localhost:3001' })).toEqual([])
  for (const bad of ['router.example', 'ftp://router.example', 'javascript:alert(1)'])
    expect(problemsOf({ BASE_URL: bad })).toEqual(['BASE_URL: expected an http(s) URL'])
  for (const bad of [
    'https://router.example/api',
    'https://router.example/?a=1',
    'https://user:pass@router.example',
  ])
    expect(problemsOf({ BASE_URL: bad })).toEqual([
      'BASE_URL: expected an origin only (scheme, host, port): no path, query, fragment or credentials',
    ])
})

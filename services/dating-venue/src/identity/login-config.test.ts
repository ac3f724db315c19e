import { loadConfig } from '@agents/service-kit'
import { expect, test } from 'vitest'
import { LoginConfig, toLoginVerifierConfig } from './login-config.ts'

const privy = {
  issuer: 'privy.io',
  audience: 'cm-app-id',
  jwksUrl: 'https://auth.privy.io/api/v1/apps/cm-app-id/jwks.json',
  algorithms: ['ES256'],
  kind: 'privy',
}

test('default: nothing configured', () => {
  expect(loadConfig(LoginConfig, {})).toEqual({
    VENUE_LOGIN_ISSUERS: [],
    VENUE_LOGIN_CLOCK_TOLERANCE_SECONDS: 30,
  })
})

test('behavior: issuers as a JSON array, kind defaulting to generic', () => {
  const config = loadConfig(LoginConfig, {
    VENUE_LOGIN_ISSUERS: JSON.stringify([
      privy,
      {
        ...privy,
        issuer: 'https://login.example',
        kind: undefined,
        algorithms: ['RS256', 'EdDSA'],
      },
    ]),
    VENUE_LOGIN_SIWE_DOMAIN: 'venue.example',
    VENUE_LOGIN_URL: 'https://login.venue.example/',
  })
  expect(config.VENUE_LOGIN_ISSUERS.map((entry) => entry.kind)).toEqual(['privy', 'generic'])
  expect(toLoginVerifierConfig(config)).toEqual({
    issuers: config.VENUE_LOGIN_ISSUERS,
    siweDomain: 'venue.example',
    clockToleranceSeconds: 30,
  })
})

test('behavior: every problem is reported', () => {
  const bad = (env: Record<string, string>) => {
    try {
      loadConfig(LoginConfig, env)
      return []
    } catch (error) {
      return (error as { problems: string[] }).problems
    }
  }
  expect(bad({ VENUE_LOGIN_ISSUERS: '{not json' })).toEqual([
    'VENUE_LOGIN_ISSUERS: expected a JSON array of issuers',
  ])
  expect(bad({ VENUE_LOGIN_ISSUERS: JSON.stringify([privy, privy]) })).toEqual([
    'VENUE_LOGIN_ISSUERS: each issuer may appear once',
  ])
  const insecure = { ...privy, jwksUrl: 'http://keys.example/jwks.json', algorithms: ['HS256'] }
  expect(bad({ VENUE_LOGIN_ISSUERS: JSON.stringify([insecure]) })).toHaveLength(2)
  expect(
    bad({ VENUE_LOGIN_URL: 'http://login.example', VENUE_LOGIN_SIWE_DOMAIN: 'a b' }),
  ).toHaveLength(2)
})

import { loadConfig } from '@agents/service-kit'
import { expect, test } from 'vitest'
import { GeoConfig, toGeoGateOptions } from './geo-config.ts'

test('default', () => {
  const config = loadConfig(GeoConfig, {})
  expect(config).toEqual({
    GEO_RESTRICTED: ['CU', 'IR', 'KP', 'SY'],
    GEO_TRUST_FORWARDED_FOR: false,
    GEO_UNKNOWN_POLICY: 'allow',
  })
  expect(toGeoGateOptions(config)).toMatchObject({
    restricted: ['CU', 'IR', 'KP', 'SY'],
    trustedCountryHeader: undefined,
    trustForwardedFor: false,
    unknownPolicy: 'allow',
  })
})

test('behavior: every variable set', () => {
  const config = loadConfig(GeoConfig, {
    GEO_RESTRICTED: ' cu, ir ,ru,T1,',
    GEO_TRUSTED_COUNTRY_HEADER: 'CF-IPCountry',
    GEO_TRUST_FORWARDED_FOR: 'true',
    GEO_UNKNOWN_POLICY: 'deny',
    // An empty value means unset (loadConfig drops it).
    OTHER: '',
  })
  expect(config).toEqual({
    GEO_RESTRICTED: ['CU', 'IR', 'RU', 'T1'],
    GEO_TRUSTED_COUNTRY_HEADER: 'CF-IPCountry',
    GEO_TRUST_FORWARDED_FOR: true,
    GEO_UNKNOWN_POLICY: 'deny',
  })
  expect(loadConfig(GeoConfig, { GEO_RESTRICTED: 'none' }).GEO_RESTRICTED).toEqual([])
  // A number is how many proxies are in front: the client is that many entries from the right.
  expect(loadConfig(GeoConfig, { GEO_TRUST_FORWARDED_FOR: '1' }).GEO_TRUST_FORWARDED_FOR).toBe(1)
  expect(loadConfig(GeoConfig, { GEO_TRUST_FORWARDED_FOR: '2' }).GEO_TRUST_FORWARDED_FOR).toBe(2)
  expect(loadConfig(GeoConfig, { GEO_TRUST_FORWARDED_FOR: '0' }).GEO_TRUST_FORWARDED_FOR).toBe(
    false,
  )
})

test('error: bad values are all reported', () => {
  expect(() =>
    loadConfig(GeoConfig, {
      GEO_RESTRICTED: 'IRAN',
      GEO_TRUSTED_COUNTRY_HEADER: 'cf ipcountry',
      GEO_TRUST_FORWARDED_FOR: 'maybe',
      GEO_UNKNOWN_POLICY: 'block',
    }),
  ).toThrowError(
    /GEO_RESTRICTED[\s\S]*GEO_TRUSTED_COUNTRY_HEADER[\s\S]*GEO_TRUST_FORWARDED_FOR[\s\S]*GEO_UNKNOWN_POLICY/,
  )
})

import { normalizeIp } from '@agents/service-kit'
import { expect, test } from 'vitest'
import { lookupCountry } from './lookup-country.ts'

test('default', () => {
  expect(lookupCountry('8.8.8.8')).toBe('US')
  expect(lookupCountry('5.22.0.1')).toBe('IR')
  expect(lookupCountry('175.45.176.1')).toBe('KP')
  expect(lookupCountry('152.206.0.1')).toBe('CU')
  expect(lookupCountry('31.9.0.1')).toBe('SY')
  expect(lookupCountry('77.44.0.1')).toBe('GB')
})

test('behavior: IPv6 and IPv4-mapped IPv6', () => {
  expect(lookupCountry('2001:4860:4860::8888')).toBe('US')
  expect(lookupCountry('2a01:5ec0::1')).toBe('IR')
  expect(lookupCountry('2A01:5EC0:0:0:0:0:0:1')).toBe('IR')
  expect(lookupCountry('::ffff:5.22.0.1')).toBe('IR')
  expect(lookupCountry('::ffff:516:1')).toBe('IR')
  expect(lookupCountry('0:0:0:0:0:ffff:8.8.8.8')).toBe('US')
})

test('behavior: no record', () => {
  for (const ip of [
    '127.0.0.1',
    '::1',
    '10.1.2.3',
    '192.168.0.1',
    'fe80::1%eth0',
    '::ffff:127.0.0.1',
  ])
    expect(lookupCountry(ip)).toBeUndefined()
  for (const junk of ['', 'localhost', '8.8.8', '1.2.3.4:80', '999.1.1.1'])
    expect(lookupCountry(junk)).toBeUndefined()
})

test('normalizeIp', () => {
  expect(normalizeIp(' 8.8.8.8 ')).toBe('8.8.8.8')
  expect(normalizeIp('::FFFF:808:808')).toBe('8.8.8.8')
  expect(normalizeIp('2001:DB8:0:0:0:0:0:1')).toBe('2001:db8::1')
  expect(normalizeIp('fe80::1%eth0')).toBe('fe80::1')
  expect(normalizeIp('nope')).toBeUndefined()
})

import { expect, test } from 'vitest'
import { clientGroup } from './client-group.ts'

test('IPv4: the address itself', () => {
  expect(clientGroup('203.0.113.9')).toBe('203.0.113.9')
  expect(clientGroup('::ffff:203.0.113.9')).toBe('203.0.113.9')
})

test('IPv6: every address of one /64 is one group', () => {
  expect(clientGroup('2001:db8:1:2:aaaa::7')).toBe('2001:db8:1:2::/64')
  expect(clientGroup('2001:DB8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64')
  expect(clientGroup('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64')
  expect(clientGroup('::1')).toBe('0:0:0:0::/64')
  expect(clientGroup('2001:db8::')).toBe('2001:db8:0:0::/64')
})

test('not an address: returned as given', () => {
  expect(clientGroup('unknown')).toBe('unknown')
})

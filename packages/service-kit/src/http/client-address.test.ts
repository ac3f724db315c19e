import { expect, test } from 'vitest'
import { pickForwardedFor, pickForwardedHop } from './client-address.ts'

test('default: the rightmost entry is the client our proxy saw', () => {
  expect(pickForwardedFor('8.8.8.8')).toBe('8.8.8.8')
  // The left entry was sent by the client itself and is ignored.
  expect(pickForwardedFor('8.8.8.8, 5.22.0.1')).toBe('5.22.0.1')
})

test('behavior: internal hops are skipped', () => {
  expect(pickForwardedFor('1.1.1.1, 5.22.0.1, 10.0.0.7, 172.16.3.4')).toBe('5.22.0.1')
  expect(pickForwardedFor('10.0.0.1, 127.0.0.1')).toBe('127.0.0.1')
})

test('behavior: ports, brackets and IPv6', () => {
  expect(pickForwardedFor('5.22.0.1:4711')).toBe('5.22.0.1')
  expect(pickForwardedFor('[2a01:5ec0::1]:443')).toBe('2a01:5ec0::1')
  expect(pickForwardedFor('::ffff:5.22.0.1')).toBe('5.22.0.1')
})

test('behavior: a malformed entry stops the walk', () => {
  expect(pickForwardedFor('8.8.8.8, unknown')).toBeUndefined()
  expect(pickForwardedFor('8.8.8.8, ,10.0.0.1')).toBeUndefined()
})

test('behavior: with a number of proxies, the entry that many from the right', () => {
  expect(pickForwardedHop('8.8.8.8, 5.22.0.1', 1)).toBe('5.22.0.1')
  // A private client address is still the client when two proxies vouch for it.
  expect(pickForwardedHop('8.8.8.8, 10.0.0.9, 5.22.0.1', 2)).toBe('10.0.0.9')
  expect(pickForwardedHop('5.22.0.1', 3)).toBe('5.22.0.1')
  expect(pickForwardedHop('8.8.8.8, garbage', 1)).toBeUndefined()
})

import { postJson } from '@agents/service-kit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { startTestVenue } from '../testing.ts'

// The test default: `localhost` and `127.0.0.1` are dev callback hosts.
let venue: Venue
beforeAll(async () => {
  venue = await startTestVenue()
})
afterAll(() => venue?.close())

const register = (callbackUrl: string) =>
  postJson(`${venue.url}/api/intake/agent`, { runtime: 'claude', callbackUrl })

describe('POST /api/intake/agent refuses a callbackUrl on any non-public address literal', () => {
  it.each([
    ['IPv4-compatible loopback', '[::127.0.0.1]'],
    ['IPv4-translated loopback', '[::ffff:0:7f00:1]'],
    ['6to4 of loopback', '[2002:7f00:1::]'],
    ['site-local', '[fec0::1]'],
    ['IPv4-mapped metadata', '[::ffff:169.254.169.254]'],
    ['NAT64 of a private address', '[64:ff9b::10.0.0.1]'],
    ['local-use NAT64', '[64:ff9b:1::5db8:d70e]'],
    ['6to4 of a private address', '[2002:c0a8:101::]'],
    ['Teredo to a loopback client', '[2001:0:4136:e378:8000:63bf:80ff:fffe]'],
    ['unique-local', '[fd12:3456::1]'],
    ['link-local', '[fe80::1]'],
    ['multicast', '[ff02::1]'],
    ['unspecified', '[::]'],
    ['IPv6 documentation', '[2001:db8::1]'],
    ['IPv6 benchmarking', '[2001:2::1]'],
    ['0.0.0.0/8', '0.1.2.3'],
    ['CGNAT', '100.64.0.1'],
    ['benchmarking', '198.18.0.1'],
    ['documentation', '203.0.113.9'],
    ['multicast', '239.255.255.250'],
    ['reserved 240/4', '240.0.0.1'],
    ['broadcast', '255.255.255.255'],
    ['decimal private', '3232235521'],
    ['hex metadata', '0xa9fea9fe'],
    ['octal dotted private', '0300.0250.1.1'],
    ['hex private', '0x0a000001'],
  ])('%s: %s', async (_, host) => {
    const answer = await register(`https://${host}/cb`)
    expect(answer.status).toBe(400)
    expect(answer.json).toMatchObject({
      error: 'invalid agent',
      issues: [{ path: ['callbackUrl'], message: 'private, loopback or link-local address' }],
    })
  })
})

describe('POST /api/intake/agent accepts public address literals and the dev hosts', () => {
  it.each([
    ['IPv4', '93.184.215.14'],
    ['IPv6', '[2606:2800:21f:cb07:6820:80da:af6b:8b2c]'],
    ['IPv4-mapped public', '[::ffff:93.184.215.14]'],
    ['NAT64 of a public address', '[64:ff9b::93.184.215.14]'],
    ['6to4 of a public address', '[2002:5db8:d70e::1]'],
    // URL parsing makes it 127.0.0.1, an allowed dev host: exempt as before.
    ['a dev host, spelled in decimal', '2130706433'],
  ])('%s: %s', async (_, host) => {
    expect((await register(`https://${host}/cb`)).status).toBe(200)
  })

  it('keeps the dev hosts exempt: http and loopback', async () => {
    for (const url of ['http://127.0.0.1:8080/cb', 'http://localhost:8080/cb'])
      expect((await register(url)).status, url).toBe(200)
  })
})

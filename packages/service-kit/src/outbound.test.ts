import { describe, expect, it } from 'vitest'
import { checkPublicUrl, isNonPublicAddress } from './outbound.ts'

// One address per range that must never be reached, named by the range.
const nonPublic: [string, string][] = [
  ['0.0.0.0/8 (this network)', '0.1.2.3'],
  ['unspecified', '0.0.0.0'],
  ['10/8 private', '10.1.2.3'],
  ['172.16/12 private', '172.31.255.255'],
  ['192.168/16 private', '192.168.0.1'],
  ['loopback', '127.0.0.1'],
  ['loopback, the rest of 127/8', '127.255.0.9'],
  ['link-local (cloud metadata)', '169.254.169.254'],
  ["Azure's wire server and metadata host (public space)", '168.63.129.16'],
  ['CGNAT 100.64/10', '100.127.255.254'],
  ['IETF protocol assignments 192.0.0/24', '192.0.0.8'],
  ['documentation TEST-NET-1', '192.0.2.1'],
  ['documentation TEST-NET-2', '198.51.100.7'],
  ['documentation TEST-NET-3', '203.0.113.9'],
  ['benchmarking 198.18/15', '198.19.0.1'],
  ['6to4 relay anycast', '192.88.99.1'],
  ['multicast', '224.0.0.1'],
  ['reserved 240/4', '240.0.0.1'],
  ['broadcast', '255.255.255.255'],
  ['IPv6 unspecified', '::'],
  ['IPv6 loopback', '::1'],
  ['IPv4-compatible loopback ([::127.0.0.1])', '::7f00:1'],
  ['IPv4-compatible public address (deprecated, not routed)', '::5db8:d70e'],
  ['IPv4-mapped loopback, dotted', '::ffff:127.0.0.1'],
  ['IPv4-mapped loopback, hex', '::ffff:7f00:1'],
  ['IPv4-mapped metadata', '::ffff:a9fe:a9fe'],
  ['IPv4-translated loopback (::ffff:0:0:0/96)', '::ffff:0:7f00:1'],
  ['IPv4-translated public address', '::ffff:0:5db8:d70e'],
  ['NAT64 of loopback', '64:ff9b::7f00:1'],
  ['NAT64 of a private address', '64:ff9b::10.0.0.1'],
  ['NAT64 of metadata', '64:ff9b::a9fe:a9fe'],
  ['local-use NAT64 64:ff9b:1::/48', '64:ff9b:1::5db8:d70e'],
  ['6to4 of loopback', '2002:7f00:1::'],
  ['6to4 of a private address', '2002:c0a8:1::1'],
  ['6to4 of metadata', '2002:a9fe:a9fe::1'],
  ["IPv4-mapped Azure's wire server", '::ffff:168.63.129.16'],
  ["NAT64 of Azure's wire server", '64:ff9b::a83f:8110'],
  ["6to4 of Azure's wire server", '2002:a83f:8110::1'],
  ['Teredo to a loopback client', '2001:0:4136:e378:8000:63bf:80ff:fffe'],
  ['Teredo through a private server', '2001:0:a00:1:8000:63bf:a247:28f1'],
  ['site-local fec0::/10', 'fec0::1'],
  ['site-local, top of the range', 'feff::1'],
  ['unique-local fc00::/7', 'fd00::1'],
  ['unique-local, fc half', 'fc00::1'],
  ['link-local fe80::/10', 'fe80::1'],
  ['link-local with a zone', 'fe80::1%eth0'],
  ['multicast ff00::/8', 'ff02::1'],
  ['discard 100::/64', '100::1'],
  ['documentation 2001:db8::/32', '2001:db8::1'],
  ['documentation 3fff::/20', '3fff::1'],
  ['benchmarking 2001:2::/48', '2001:2::1'],
  ['ORCHIDv2', '2001:20::1'],
  ['outside 2000::/3 (unallocated)', '4000::1'],
  ['not an IP address', 'agent.example'],
  ['an IPv4 spelling only URL parsing accepts', '2130706433'],
  ['empty', ''],
]

const publicAddresses: [string, string][] = [
  ['IPv4', '93.184.215.14'],
  ['IPv4 next to 100.64/10', '100.128.0.1'],
  ['IPv4 next to 172.16/12', '172.32.0.1'],
  ["IPv4 next to Azure's wire server", '168.63.129.17'],
  ['IPv6 global unicast', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  ['IPv4-mapped public address', '::ffff:93.184.215.14'],
  ['NAT64 of a public address (DNS64 answers)', '64:ff9b::5db8:d70e'],
  ['6to4 of a public address', '2002:5db8:d70e::1'],
  ['Teredo to a public client', '2001:0:4136:e378:8000:63bf:a247:28f1'],
]

describe('isNonPublicAddress', () => {
  it.each(nonPublic)('refuses %s: %s', (_, address) => {
    expect(isNonPublicAddress(address)).toBe(true)
  })
  it.each(publicAddresses)('lets a public %s through: %s', (_, address) => {
    expect(isNonPublicAddress(address)).toBe(false)
  })
})

const refusedLiteral = { ok: false, reason: 'private, loopback or link-local address' }

describe('checkPublicUrl', () => {
  it.each(nonPublic.filter(([, address]) => address.includes(':') && !address.includes('%')))(
    'refuses the IPv6 literal of %s',
    (_, address) => {
      expect(checkPublicUrl(`https://[${address}]/cb`)).toEqual(refusedLiteral)
    },
  )

  it.each([
    '[::127.0.0.1]',
    '[::ffff:0:7f00:1]',
    '[::ffff:0:127.0.0.1]',
    '[2002:7f00:1::]',
    '[fec0::1]',
    '[0:0:0:0:0:ffff:7f00:1]',
    '[64:ff9b::127.0.0.1]',
  ])('refuses the IPv6 spelling %s', (host) => {
    expect(checkPublicUrl(`https://${host}/cb`)).toEqual(refusedLiteral)
  })

  it.each(nonPublic.filter(([, address]) => /^\d+\.\d+\.\d+\.\d+$/.test(address)))(
    'refuses the IPv4 literal of %s',
    (_, address) => {
      expect(checkPublicUrl(`https://${address}/cb`)).toEqual(refusedLiteral)
    },
  )

  // URL parsing turns each of these into a dotted quad before the check.
  it.each([
    ['decimal loopback', '2130706433'],
    ['hex loopback', '0x7f000001'],
    ['octal loopback', '017700000001'],
    ['hex and short loopback', '0x7f.1'],
    ['octal dotted loopback', '0177.0.0.1'],
    ['short loopback', '127.1'],
    ['decimal private', '3232235521'],
    ['octal dotted private', '0300.0250.1.1'],
    ['hex metadata', '0xa9fea9fe'],
    ['metadata with a trailing dot', '169.254.169.254.'],
    ["decimal Azure's wire server", '2822734096'],
    ["hex Azure's wire server", '0xa83f8110'],
    ['bare zero', '0'],
  ])('refuses the IPv4 spelling of %s: %s', (_, host) => {
    expect(checkPublicUrl(`https://${host}/cb`)).toEqual(refusedLiteral)
  })

  it.each(publicAddresses)('accepts the literal of a public %s', (_, address) => {
    const host = address.includes(':') ? `[${address}]` : address
    expect(checkPublicUrl(`https://${host}/cb`)).toMatchObject({ ok: true })
  })

  it('refuses localhost names, credentials, http and non-URLs', () => {
    expect(checkPublicUrl('https://localhost./cb')).toEqual({ ok: false, reason: 'loopback host' })
    expect(checkPublicUrl('https://a.localhost/cb')).toEqual({ ok: false, reason: 'loopback host' })
    expect(checkPublicUrl('https://u:p@agent.example/cb')).toEqual({
      ok: false,
      reason: 'credentials in the URL',
    })
    expect(checkPublicUrl('http://agent.example/cb')).toEqual({ ok: false, reason: 'https only' })
    expect(checkPublicUrl('agent.example')).toEqual({ ok: false, reason: 'not a URL' })
  })

  it('lets an allowed dev host use http and a private address, and nothing else', () => {
    const allowHosts = ['127.0.0.1', '[::1]', 'localhost']
    for (const url of ['http://127.0.0.1:8080/cb', 'https://[::1]/cb', 'http://localhost/cb'])
      expect(checkPublicUrl(url, { allowHosts }), url).toMatchObject({ ok: true })
    expect(checkPublicUrl('ftp://localhost/cb', { allowHosts })).toEqual({
      ok: false,
      reason: 'https only',
    })
    // Hosts match as the URL spells them after parsing: 2130706433 is 127.0.0.1.
    expect(checkPublicUrl('http://2130706433/cb', { allowHosts })).toMatchObject({ ok: true })
    expect(checkPublicUrl('https://[::7f00:1]/cb', { allowHosts })).toEqual(refusedLiteral)
  })
})

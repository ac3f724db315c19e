import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'

type IPv4 = ipaddr.IPv4
type IPv6 = ipaddr.IPv6

// Cloud metadata hosts inside space ipaddr.js calls public unicast, so no
// range names them: Azure's wire server (168.63.129.16), which serves the
// guest agent, DHCP, DNS and health probes, with no credential asked of a VM.
const METADATA_IPV4 = new Set(['168.63.129.16'])

// Only `unicast` is public: ipaddr.js names every special-purpose range of
// the IANA registries (RFC 6890), e.g. private, loopback, link-local (cloud
// metadata lives at 169.254.169.254), CGNAT, unspecified, broadcast,
// multicast, benchmarking, documentation, 240/4, AS112 and AMT anycast.
// The metadata hosts above are refused as well.
const isPublicIPv4 = (address: IPv4): boolean =>
  address.range() === 'unicast' && !METADATA_IPV4.has(address.toString())

const embeddedIPv4 = (high: number, low: number): IPv4 =>
  new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff])

// 2000::/3 is the only global unicast space; outside it (compatible
// `::a.b.c.d`, `::ffff:0:a.b.c.d`, site-local fec0::/10, unique-local,
// link-local, multicast, discard, unallocated space) nothing is public.
const globalUnicast = ipaddr.IPv6.parseCIDR('2000::/3')

const isPublicIPv6 = (address: IPv6): boolean => {
  const [, b = 0, c = 0, d = 0, , , g = 0, h = 0] = address.parts
  switch (address.range()) {
    // Connecting to ::ffff:a.b.c.d reaches a.b.c.d over IPv4.
    case 'ipv4Mapped':
      return isPublicIPv4(address.toIPv4Address())
    // NAT64 (64:ff9b::/96) reaches the IPv4 address in its low 32 bits;
    // DNS64 answers with these for IPv4-only names. The local-use
    // 64:ff9b:1::/48 (RFC 8215) is never public.
    case 'rfc6052':
      return b === 0xff9b && c === 0 && isPublicIPv4(embeddedIPv4(g, h))
    // 6to4 (2002::/16) tunnels to the IPv4 address in bits 16-47.
    case '6to4':
      return isPublicIPv4(embeddedIPv4(b, c))
    // Teredo (2001::/32): server IPv4 in bits 32-63, the client's IPv4 inverted in the last 32.
    case 'teredo':
      return (
        isPublicIPv4(embeddedIPv4(c, d)) && isPublicIPv4(embeddedIPv4(~g & 0xffff, ~h & 0xffff))
      )
    case 'unicast':
      return address.match(globalUnicast)
    default:
      return false
  }
}

/**
 * True for an IP address no outbound call may reach: anything but a public
 * unicast address (classified by ipaddr.js's ranges) or a cloud metadata
 * host in public space (Azure's 168.63.129.16), with the IPv4 address
 * inside IPv4-mapped, NAT64, 6to4 and Teredo addresses classified as well.
 * A string that is not an IP address (`net.isIP`) counts as non-public.
 *
 * @example
 * isNonPublicAddress('::ffff:7f00:1') // true: 127.0.0.1, IPv4-mapped
 * isNonPublicAddress('2002:5db8:d70e::1') // false: 6to4 of 93.184.215.14
 */
export const isNonPublicAddress = (address: string): boolean => {
  const family = isIP(address)
  if (family === 4) return !isPublicIPv4(ipaddr.IPv4.parse(address))
  if (family === 6) return !isPublicIPv6(ipaddr.IPv6.parse(address))
  return true
}

export type PublicUrlOptions = {
  /** Hosts a test or local setup may use over http and on private addresses. */
  allowHosts?: readonly string[]
}

export type PublicUrlCheck = { ok: true; url: URL } | { ok: false; reason: string }

/**
 * Checks a URL a user gave us for later use: https, no credentials in it,
 * and neither `localhost` nor a non-public IP literal (`isNonPublicAddress`;
 * URL parsing has already turned `2130706433`, `0x7f.1` or `0177.0.0.1`
 * into `127.0.0.1` and `[::127.0.0.1]` into `[::7f00:1]`). Hosts in
 * `allowHosts` skip the address check and may use http. Names are resolved
 * and checked again at call time by whoever calls out.
 *
 * @example
 * checkPublicUrl('https://[2002:7f00:1::]/cb') // { ok: false, reason: 'private, loopback or link-local address' }
 */
export const checkPublicUrl = (
  value: string,
  { allowHosts = [] }: PublicUrlOptions = {},
): PublicUrlCheck => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return { ok: false, reason: 'not a URL' }
  }
  if (url.username || url.password) return { ok: false, reason: 'credentials in the URL' }
  if (allowHosts.includes(url.hostname)) {
    return url.protocol === 'https:' || url.protocol === 'http:'
      ? { ok: true, url }
      : { ok: false, reason: 'https only' }
  }
  if (url.protocol !== 'https:') return { ok: false, reason: 'https only' }
  // `localhost.` is `localhost`: a trailing dot is the DNS root.
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase()
  if (host === 'localhost' || host.endsWith('.localhost'))
    return { ok: false, reason: 'loopback host' }
  if (isIP(host) && isNonPublicAddress(host))
    return { ok: false, reason: 'private, loopback or link-local address' }
  return { ok: true, url }
}

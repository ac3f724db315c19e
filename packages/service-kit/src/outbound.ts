import { BlockList, isIP } from 'node:net'

// Addresses a user-supplied URL may never point at: loopback, private,
// link-local (cloud metadata lives at 169.254.169.254), CGNAT, unspecified,
// multicast and the IPv6 equivalents (plus IPv4-mapped forms).
const blocked = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(network, prefix, 'ipv4')
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const)
  blocked.addSubnet(network, prefix, 'ipv6')

/** True for an IP address no outbound call may reach (see the list above). */
export const isNonPublicAddress = (address: string): boolean => {
  const family = isIP(address)
  if (family === 4) return blocked.check(address, 'ipv4')
  if (family !== 6) return false
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return blocked.check(mapped[1]!, 'ipv4')
  return blocked.check(address, 'ipv6')
}

export type PublicUrlOptions = {
  /** Hosts a test or local setup may use over http and on private addresses. */
  allowHosts?: readonly string[]
}

export type PublicUrlCheck = { ok: true; url: URL } | { ok: false; reason: string }

/**
 * Checks a URL a user gave us for later use: https, no credentials in it,
 * and not a loopback, private or link-local IP literal (or `localhost`).
 * Names are resolved and checked again at call time by whoever calls out.
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

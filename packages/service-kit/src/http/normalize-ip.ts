import { isIP } from 'node:net'

/**
 * Canonical form of an IP address, or undefined when `value` is not one.
 * IPv6 is compressed and lower-cased, zone ids are dropped, and IPv4-mapped
 * IPv6 (`::ffff:8.8.8.8`, `::ffff:808:808`) becomes the plain IPv4 address.
 */
export const normalizeIp = (value: string): string | undefined => {
  const address = value.trim().replace(/%.*$/, '')
  const family = isIP(address)
  if (family === 4) return address
  if (family !== 6) return undefined
  // WHATWG URL parsing gives one spelling per address (RFC 5952 style).
  const host = new URL(`http://[${address}]/`).hostname.slice(1, -1)
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host)
  if (!mapped) return host
  const high = Number.parseInt(mapped[1]!, 16)
  const low = Number.parseInt(mapped[2]!, 16)
  return [high >> 8, high & 255, low >> 8, low & 255].join('.')
}

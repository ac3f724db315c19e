import { isIP } from 'node:net'
import { normalizeIp } from './normalize-ip.ts'

/**
 * The group an address counts in for per-client limits: an IPv4 address is
 * its own group (one /32: carriers' NAT already puts many people behind one
 * address, a wider group would punish them), an IPv6 address counts as its
 * /64 (one host usually holds a whole /64 and can pick any address in it).
 * IPv4-mapped IPv6 is the IPv4 address. Anything else is returned as given.
 *
 * @example clientGroup('2001:db8:1:2:aaaa::7') // '2001:db8:1:2::/64'
 */
export const clientGroup = (address: string): string => {
  const normal = normalizeIp(address)
  if (normal === undefined) return address
  if (isIP(normal) === 4) return normal
  const [head, tail = ''] = normal.split('::')
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const groups = normal.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left
  const prefix = groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')
  return `${prefix}::/64`
}

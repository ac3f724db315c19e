import { normalizeIp } from '@agents/service-kit'
import geoip from 'geoip-country'

/**
 * ISO 3166-1 alpha-2 country of an IP address from the GeoLite2 data inside
 * `geoip-country`; undefined for an address with no record (loopback,
 * private, reserved) or a string that is not an address.
 *
 * @example
 * lookupCountry('8.8.8.8') // 'US'
 */
export const lookupCountry = (ip: string): string | undefined => {
  const address = normalizeIp(ip)
  if (address === undefined) return undefined
  return geoip.lookup(address)?.country || undefined
}

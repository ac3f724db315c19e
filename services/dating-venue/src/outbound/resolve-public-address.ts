import { lookup as dnsLookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import { isNonPublicAddress } from '@agents/service-kit'
import { type OutboundError, outboundError } from './outbound-result.ts'

export type ResolvedAddress = { address: string; family: 4 | 6 }

/** Resolves a host name to all of its addresses (like `dns.lookup` with `all: true`). */
export type LookupAll = (
  hostname: string,
) => Promise<readonly { address: string; family: number }[]>

export const lookupAll: LookupAll = (hostname) => dnsLookup(hostname, { all: true, verbatim: true })

export type ResolvePublicAddressParameters = {
  /** Hosts exempt from the address check (tests and local setups). */
  allowHosts?: readonly string[]
  lookup?: LookupAll
}

/**
 * The address to connect to for `url`: an IP literal as is, a name through
 * `lookup`. Refused when ANY resolved address is non-public, so a name that
 * mixes public and private records cannot be used to reach the private one.
 * The caller must connect to the returned address, not resolve again.
 */
export const resolvePublicAddress = async (
  url: URL,
  { allowHosts = [], lookup = lookupAll }: ResolvePublicAddressParameters = {},
): Promise<({ ok: true } & ResolvedAddress) | OutboundError> => {
  const host = url.hostname.replace(/^\[|\]$/g, '')
  let addresses: readonly { address: string; family: number }[]
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }]
  } else {
    try {
      addresses = await lookup(host)
    } catch (error) {
      return outboundError('dns', `${host} did not resolve: ${(error as Error).message}`)
    }
  }
  const first = addresses[0]
  if (!first || (first.family !== 4 && first.family !== 6))
    return outboundError('dns', `${host} has no address`)
  if (!allowHosts.includes(url.hostname)) {
    const bad = addresses.find(({ address }) => isNonPublicAddress(address))
    if (bad)
      return outboundError('forbidden_address', `${host} resolves to non-public ${bad.address}`)
  }
  return { ok: true, address: first.address, family: first.family }
}

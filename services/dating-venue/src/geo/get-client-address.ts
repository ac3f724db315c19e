import { isNonPublicAddress } from '@agents/service-kit'
import { getConnInfo } from '@hono/node-server/conninfo'
import type { Context } from 'hono'
import { normalizeIp } from './normalize-ip.ts'

export type GetClientAddressParameters = {
  /** Read X-Forwarded-For (see `pickForwardedFor`); only behind a proxy that sets it. */
  trustForwardedFor?: boolean
}

/**
 * The client's IP address: from X-Forwarded-For when trusted and present,
 * otherwise the socket's peer. Undefined when neither gives an address
 * (e.g. `app.request` in-process, where there is no socket).
 */
export const getClientAddress = (
  c: Context,
  { trustForwardedFor = false }: GetClientAddressParameters = {},
): string | undefined => {
  if (trustForwardedFor) {
    const forwarded = c.req.header('x-forwarded-for')
    if (forwarded !== undefined && forwarded.trim() !== '') return pickForwardedFor(forwarded)
  }
  try {
    const address = getConnInfo(c).remote.address
    return address === undefined ? undefined : normalizeIp(address)
  } catch {
    return undefined
  }
}

/**
 * The rightmost-untrusted entry of an X-Forwarded-For value. Each proxy
 * appends the address it saw, so entries to the left of our own proxies'
 * are whatever the client sent and prove nothing. Walking from the right,
 * non-public entries (our load balancers and internal hops) are skipped and
 * the first public address is the client. If every entry is non-public the
 * rightmost is returned (it has no country record). A malformed entry stops
 * the walk: undefined, as nothing left of it can be trusted.
 */
export const pickForwardedFor = (value: string): string | undefined => {
  const entries = value.split(',')
  let rightmost: string | undefined
  for (let index = entries.length - 1; index >= 0; index--) {
    const address = normalizeIp(stripPort(entries[index]!.trim()))
    if (address === undefined) return undefined
    rightmost ??= address
    if (!isNonPublicAddress(address)) return address
  }
  return rightmost
}

// Some proxies write `1.2.3.4:5678` or `[2001:db8::1]:443`.
const stripPort = (entry: string): string => {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(entry)
  if (bracketed) return bracketed[1]!
  const v4WithPort = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(entry)
  return v4WithPort ? v4WithPort[1]! : entry
}

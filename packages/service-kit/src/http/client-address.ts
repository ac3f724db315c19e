import { getConnInfo } from '@hono/node-server/conninfo'
import type { Context } from 'hono'
import { isNonPublicAddress } from '../outbound.ts'
import { normalizeIp } from './normalize-ip.ts'

/**
 * Whom X-Forwarded-For is believed from: `false` (never: the socket's peer is
 * the client), `true` (our proxies are the non-public hops: walk from the
 * right past them), or the number of proxies in front of the service (the
 * client is that many entries from the right, whatever it looks like).
 */
export type ForwardedTrust = boolean | number

export type ClientAddressParameters = {
  /** How much of X-Forwarded-For to believe; only behind a proxy that sets it. */
  trustForwardedFor?: ForwardedTrust
}

/**
 * The client's IP address from what a request carries: X-Forwarded-For when
 * trusted and present, otherwise the socket's peer (`remote`). For a server
 * that reads node:http's request before any Hono context exists (the launch
 * router's hot path); `clientAddress` is the same rule on a context.
 */
export const requestAddress = (
  { forwardedFor, remote }: { forwardedFor: string | undefined; remote: string | undefined },
  { trustForwardedFor = false }: ClientAddressParameters = {},
): string | undefined => {
  if (
    trustForwardedFor !== false &&
    trustForwardedFor !== 0 &&
    forwardedFor !== undefined &&
    forwardedFor.trim() !== ''
  )
    return typeof trustForwardedFor === 'number'
      ? pickForwardedHop(forwardedFor, trustForwardedFor)
      : pickForwardedFor(forwardedFor)
  return remote === undefined ? undefined : normalizeIp(remote)
}

/**
 * The client's IP address: from X-Forwarded-For when trusted and present,
 * otherwise the socket's peer. Undefined when neither gives an address
 * (e.g. `app.request` in-process, where there is no socket).
 */
export const clientAddress = (
  c: Context,
  parameters: ClientAddressParameters = {},
): string | undefined => {
  let remote: string | undefined
  try {
    remote = getConnInfo(c).remote.address
  } catch {
    remote = undefined
  }
  return requestAddress({ forwardedFor: c.req.header('x-forwarded-for'), remote }, parameters)
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

/**
 * The entry `proxies` places from the right: with one proxy, the address it
 * saw (the last entry). A header shorter than that (a client talking to an
 * inner hop directly) yields its leftmost entry, the closest to the client
 * that any of our proxies vouches for.
 */
export const pickForwardedHop = (value: string, proxies: number): string | undefined => {
  const entries = value.split(',')
  const entry = entries[Math.max(entries.length - proxies, 0)]!
  return normalizeIp(stripPort(entry.trim()))
}

// Some proxies write `1.2.3.4:5678` or `[2001:db8::1]:443`.
const stripPort = (entry: string): string => {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(entry)
  if (bracketed) return bracketed[1]!
  const v4WithPort = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(entry)
  return v4WithPort ? v4WithPort[1]! : entry
}

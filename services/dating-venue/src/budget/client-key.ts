import { type AppEnv, clientAddress, clientGroup, type ForwardedTrust } from '@agents/service-kit'
import type { Context } from 'hono'

/**
 * Whom a request's outbound calls and anonymous submissions count for: the
 * client the request limits found (`c.var.client`: its credential, chat
 * session or operator, else its address group), or, in an app without
 * request limits, its address group (an IPv4 address, an IPv6 /64).
 */
export const clientKeyOf = (
  c: Context<AppEnv>,
  { trustForwardedFor }: { trustForwardedFor: ForwardedTrust },
): string =>
  c.get('client')?.key ?? `ip:${clientGroup(clientAddress(c, { trustForwardedFor }) ?? 'unknown')}`

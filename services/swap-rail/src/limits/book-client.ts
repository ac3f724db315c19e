import {
  type AppEnv,
  clientAddress,
  clientGroup,
  credentialKey,
  type ForwardedTrust,
} from '@agents/service-kit'
import type { Context } from 'hono'

/** The key a client's offers and intents are stored under: a hash of its address group, never the address. */
export const bookClientKey = (addressGroup: string) => credentialKey('client', addressGroup)

/**
 * Who posts an offer or an intent, for the book bounds: the client's
 * address group as the request limits name it (IPv4 address, IPv6 /64,
 * X-Forwarded-For only as far as `trustForwardedFor` says), hashed. Nothing
 * else identifies a poster: the rail takes no credential to post.
 */
export const bookClientOf = (
  c: Context<AppEnv>,
  { trustForwardedFor }: { trustForwardedFor: ForwardedTrust },
) =>
  bookClientKey(
    c.var.client?.address ?? clientGroup(clientAddress(c, { trustForwardedFor }) ?? 'unknown'),
  )

import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose'

const cache = new Map<string, JWTVerifyGetKey>()

/**
 * The hub's key set, one per URL for the life of the process: jose keeps the
 * fetched keys, refetches after ten minutes, and refetches sooner (at most
 * every 30 s) when a grant names a `kid` it has not seen, which is how key
 * rotation reaches a running seller.
 *
 * @example const jwks = getHubJwks('https://hub.example/.well-known/jwks.json')
 */
export const getHubJwks = (hubJwksUrl: string | URL): JWTVerifyGetKey => {
  const url = new URL(hubJwksUrl)
  let jwks = cache.get(url.href)
  if (!jwks) {
    jwks = createRemoteJWKSet(url)
    cache.set(url.href, jwks)
  }
  return jwks
}

/**
 * Thrown when a 402 would name a resource by anything but an absolute http(s)
 * URL. A relative one could only be completed from the request, whose `Host`
 * the client chose: the service builds it on its configured base URL instead.
 */
export class ResourceUrlError extends Error {
  override readonly name = 'ResourceUrlError'
}

/**
 * The resource URL a 402 names, checked: absolute, http or https. Throws
 * `ResourceUrlError` on a path or anything else, the first time a route that
 * passes one is asked for its challenge.
 */
export const checkedResourceUrl = (url: string): URL => {
  const parsed = URL.canParse(url) ? new URL(url) : undefined
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:'))
    throw new ResourceUrlError(
      `a 402's resource must be an absolute http(s) URL built on the service's base URL (resourceUrl(deps.baseUrl(), path)), never completed from the request: got ${JSON.stringify(url)}`,
    )
  return parsed
}

/**
 * A route's absolute URL on the service's base URL: what a 402 names as its
 * resource. The base comes from configuration (`BASE_URL`, else the address
 * the server bound), never from the request's `Host` or `X-Forwarded-Host`.
 *
 * @example
 * resourceUrl(deps.baseUrl(), '/v1/matches/7f3c.../pay') // 'https://rail.example/v1/matches/7f3c.../pay'
 */
export const resourceUrl = (baseUrl: string, path: string): string => {
  if (!path.startsWith('/'))
    throw new ResourceUrlError(`a resource path starts with "/": got ${JSON.stringify(path)}`)
  return checkedResourceUrl(`${baseUrl.replace(/\/+$/, '')}${path}`).href
}

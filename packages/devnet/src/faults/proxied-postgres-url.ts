/**
 * The same PostgreSQL connection URL pointed at `proxy` (e.g. a TCP fault proxy): host and port
 * are replaced, and `host`/`port` query parameters (which would override them) are dropped.
 *
 * @example
 * proxiedPostgresUrl('postgres://postgres@127.0.0.1:5432/test', { host: '127.0.0.1', port: 40123 })
 * // 'postgres://postgres@127.0.0.1:40123/test'
 */
export const proxiedPostgresUrl = (url: string, proxy: { host: string; port: number }): string => {
  const proxied = new URL(url)
  proxied.hostname = proxy.host
  proxied.port = String(proxy.port)
  // Only when present: touching searchParams re-encodes the whole query.
  for (const name of ['host', 'port'])
    if (proxied.searchParams.has(name)) proxied.searchParams.delete(name)
  return proxied.toString()
}

import { clientAddress, type ForwardedTrust } from '@agents/service-kit'
import type { Context, MiddlewareHandler } from 'hono'
import { lookupCountry } from './lookup-country.ts'

/** The 403 message the spec fixes for a restricted jurisdiction. */
export const GEO_DENIED_MESSAGE = 'service unavailable in this location'

export type GeoUnknownPolicy = 'allow' | 'deny'

export type GeoGateOptions = {
  /** ISO 3166-1 alpha-2 codes to refuse (case-insensitive); `T1` matches Cloudflare's Tor code. */
  restricted: readonly string[]
  /**
   * A CDN's country header (e.g. `cf-ipcountry`). Set it only when every
   * request reaches us through that CDN: clients can send it too. When the
   * header is present it wins over the address; `XX` or a malformed value
   * counts as unknown; when absent the address decides.
   */
  trustedCountryHeader?: string
  /** Take the client address from X-Forwarded-For: `true` the rightmost public hop, `N` behind N proxies. */
  trustForwardedFor?: ForwardedTrust
  /** What to do when no country is known (loopback, private, no record, `XX`). */
  unknownPolicy: GeoUnknownPolicy
  /** Called once per refused request (country undefined when refused as unknown). */
  onDenied?: (country: string | undefined) => void | Promise<void>
}

/** Set by `geoGate` for later handlers: the country it decided on, if any. */
export type GeoVariables = { geoCountry: string | undefined }

/**
 * Middleware refusing requests from restricted jurisdictions with 403
 * `{"error":"service unavailable in this location"}`. Register it before
 * every route (Hono runs handlers in registration order) so it also runs
 * ahead of the 404.
 *
 * @example
 * app.use(geoGate({ restricted: ['CU', 'IR', 'KP', 'SY'], unknownPolicy: 'allow' }))
 */
export const geoGate = ({
  restricted,
  trustedCountryHeader,
  trustForwardedFor = false,
  unknownPolicy,
  onDenied,
}: GeoGateOptions): MiddlewareHandler<{ Variables: GeoVariables }> => {
  const blocked = new Set(restricted.map((code) => code.trim().toUpperCase()))
  const headerName = trustedCountryHeader?.trim().toLowerCase() || undefined

  const countryOf = (c: Context): string | undefined => {
    const headerValue = headerName === undefined ? undefined : c.req.header(headerName)
    if (headerValue !== undefined) return parseCountryHeader(headerValue)
    const address = clientAddress(c, { trustForwardedFor })
    return address === undefined ? undefined : lookupCountry(address)
  }

  return async function geoGateMiddleware(c, next) {
    const country = countryOf(c)
    const denied = country === undefined ? unknownPolicy === 'deny' : blocked.has(country)
    if (denied) {
      reportDenial(onDenied, country)
      return c.json({ error: GEO_DENIED_MESSAGE }, 403)
    }
    c.set('geoCountry', country)
    await next()
  }
}

// Cloudflare sends `XX` when it has no data and `T1` for Tor exits.
const parseCountryHeader = (value: string): string | undefined => {
  const code = value.trim().toUpperCase()
  return /^[A-Z][A-Z0-9]$/.test(code) && code !== 'XX' ? code : undefined
}

// A failing counter must never turn a refusal into a 500 or delay it.
const reportDenial = (onDenied: GeoGateOptions['onDenied'], country: string | undefined) => {
  if (!onDenied) return
  try {
    Promise.resolve(onDenied(country)).catch(() => {})
  } catch {}
}

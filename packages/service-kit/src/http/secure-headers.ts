import type { Context, MiddlewareHandler } from 'hono'
import { secureHeaders } from 'hono/secure-headers'
import type { AppEnv } from '../app-type.ts'

/**
 * What every answer of every service carries, JSON and HTML alike: no
 * content sniffing (a JSON answer holding client text is never run as HTML
 * or script), no framing, no referrer, and a policy under which a non-HTML
 * answer opened in a browser loads and runs nothing. Exported for a
 * listener that answers before the app (the launch router's hot path).
 */
export const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
} as const

/**
 * The policy of every HTML page: only the page's own inline script and
 * style run (their nonce, new for each answer), the script talks only to
 * its own origin, forms post only there, and nothing frames the page.
 */
const pagePolicy = (nonce: string) =>
  `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`

const newNonce = () => Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64')

/**
 * The nonce of this answer's inline script and style: a page puts it on
 * its `<script nonce>` and `<style nonce>`; the answer's
 * Content-Security-Policy names it.
 *
 * @example return c.html(chatPage({ nonce: pageNonce(c) }))
 */
export const pageNonce = <variables extends object>(c: Context<AppEnv<variables>>): string => {
  // Every app's context holds service-kit's variables (Hono's env is invariant).
  const context = c as unknown as Context<AppEnv>
  const known = context.get('pageNonce')
  if (known) return known
  const nonce = newNonce()
  context.set('pageNonce', nonce)
  return nonce
}

const staticHeaders = secureHeaders({
  contentSecurityPolicy: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
  referrerPolicy: SECURITY_HEADERS['referrer-policy'],
  xContentTypeOptions: SECURITY_HEADERS['x-content-type-options'],
  xFrameOptions: SECURITY_HEADERS['x-frame-options'],
  // The rest of Hono's defaults are left to the operator's proxy (HSTS
  // belongs where TLS ends) or say nothing an API's client reads.
  crossOriginResourcePolicy: false,
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  strictTransportSecurity: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
})

/**
 * Service-kit's security headers, on every answer (errors, 404s, 429s
 * included): `SECURITY_HEADERS`, through Hono's `secureHeaders`; an HTML
 * answer's policy is the page policy instead, with the nonce `pageNonce`
 * gave its script (or a fresh one no script has, for a page without one).
 */
export const secureAnswers = (): MiddlewareHandler<AppEnv> =>
  async function secureAnswers(c, next) {
    await staticHeaders(c, async () => {
      await next()
    })
    if (c.res.headers.get('content-type')?.startsWith('text/html'))
      c.res.headers.set('content-security-policy', pagePolicy(pageNonce(c)))
  }

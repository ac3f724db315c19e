import { createApp, createLogger, pageNonce, startTestServer } from '@agents/service-kit'
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose'
import type { TrustedIssuerInput } from '../trusted-issuer.ts'
import { renderLoginPage } from './login-page.ts'

export type SignLocalTokenOptions = {
  /** ES256 and RS256 use the issuer's keys; any other alg (HS256, ...) needs `key`. */
  alg?: string
  /** Header `kid`; defaults to the issuer's kid for `alg`. */
  kid?: string
  /** Seconds from now until `exp` (negative for an expired token); default 600. */
  expiresIn?: number
  /** Sign with this key instead of the issuer's (forgeries, HS256 confusion). */
  key?: CryptoKey | Uint8Array
}

export type LocalIssuer = {
  /** Base URL of the server. */
  url: string
  /** The `iss` it puts in tokens (its own URL unless given). */
  issuer: string
  audience: string
  jwksUrl: string
  /** `GET {loginUrl}?redirect_uri=...&sub=...` shows the test sign-in page. */
  loginUrl: string
  kids: { ES256: string; RS256: string }
  /** How many times `/.well-known/jwks.json` was fetched (to test caching). */
  jwksRequests: () => number
  /** Signs claims over defaults (iss, aud, sub `test-human-N`, iat, exp). */
  sign: (claims?: JWTPayload, options?: SignLocalTokenOptions) => Promise<string>
  /** The VENUE_LOGIN_ISSUERS entry that trusts this issuer. */
  trustedIssuer: (overrides?: Partial<TrustedIssuerInput>) => TrustedIssuerInput
  close: () => Promise<void>
}

/**
 * A local JWT issuer over real HTTP, standing in for Privy/Dynamic in tests:
 * fresh ES256 and RS256 keys, their public halves at `/.well-known/jwks.json`,
 * and a login page whose "Sign in as test human" button returns to
 * `redirect_uri#authToken=<JWT>` (for browser tests of the claim page).
 */
export const createLocalIssuer = async ({
  issuer: fixedIssuer,
  audience = 'venue-test',
}: {
  issuer?: string
  audience?: string
} = {}): Promise<LocalIssuer> => {
  const es = await generateKeyPair('ES256', { extractable: true })
  const rs = await generateKeyPair('RS256', { extractable: true, modulusLength: 2048 })
  const kids = { ES256: 'local-es256-1', RS256: 'local-rs256-1' }
  const publicJwk = async (key: CryptoKey, alg: string, kid: string): Promise<JWK> => ({
    ...(await exportJWK(key)),
    kid,
    alg,
    use: 'sig',
  })
  const jwks = {
    keys: [
      await publicJwk(es.publicKey, 'ES256', kids.ES256),
      await publicJwk(rs.publicKey, 'RS256', kids.RS256),
    ],
  }
  let jwksRequests = 0
  let humans = 0
  const nextHuman = () => `test-human-${++humans}`
  let issuer = fixedIssuer ?? ''

  const sign = async (claims: JWTPayload = {}, options: SignLocalTokenOptions = {}) => {
    const { alg = 'ES256', expiresIn = 600 } = options
    const own = alg === 'ES256' ? es.privateKey : alg === 'RS256' ? rs.privateKey : undefined
    const key = options.key ?? own
    if (!key) throw new Error(`sign: alg ${alg} needs options.key`)
    const kid = options.kid ?? (alg === 'ES256' || alg === 'RS256' ? kids[alg] : undefined)
    const now = Math.floor(Date.now() / 1000)
    const payload = {
      iss: issuer,
      aud: audience,
      sub: claims.sub ?? nextHuman(),
      iat: now,
      exp: now + expiresIn,
      ...claims,
    }
    return new SignJWT(payload)
      .setProtectedHeader({ alg, typ: 'JWT', ...(kid ? { kid } : {}) })
      .sign(key)
  }

  const app = createApp({
    name: 'local-issuer',
    version: '0.0.0',
    logger: createLogger({ name: 'local-issuer', level: 'silent' }),
  })
  app.get('/.well-known/jwks.json', (c) => {
    jwksRequests++
    return c.json(jwks)
  })
  app.get('/login', async (c) => {
    const redirectUri = c.req.query('redirect_uri') ?? ''
    let target: URL
    try {
      target = new URL(redirectUri)
      if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error('scheme')
    } catch {
      return c.text('redirect_uri must be an http(s) URL', 400)
    }
    const sub = c.req.query('sub') || nextHuman()
    // Minted when the page renders; the default 10-minute life covers a slow click.
    target.hash = `authToken=${await sign({ sub })}`
    return c.html(renderLoginPage({ subject: sub, target: target.href, nonce: pageNonce(c) }))
  })

  const server = await startTestServer(app)
  issuer ||= server.url
  return {
    url: server.url,
    issuer,
    audience,
    jwksUrl: `${server.url}/.well-known/jwks.json`,
    loginUrl: `${server.url}/login`,
    kids,
    jwksRequests: () => jwksRequests,
    sign,
    trustedIssuer: (overrides = {}) => ({
      issuer,
      audience,
      jwksUrl: `${server.url}/.well-known/jwks.json`,
      algorithms: ['ES256', 'RS256'],
      kind: 'generic',
      ...overrides,
    }),
    close: server.close,
  }
}

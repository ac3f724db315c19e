import { randomUUID } from 'node:crypto'
import { createApp, createLogger, startTestServer } from '@agents/service-kit'
import {
  base64url,
  type CryptoKey,
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  SignJWT,
} from 'jose'

export const TEST_ENDPOINT = 'https://seller.example/v1'
export const TEST_MODEL = 'gpt-test'

export type IssueGrantOptions = {
  matchId?: string
  model?: string
  mtok?: number | string
  audience?: string
  issuer?: string
  /** Seconds from now; negative issues an already expired grant. */
  expiresIn?: number
  /** Claims to leave out. */
  omit?: string[]
  /** Sign with another key (a forger), keeping the hub's `kid` unless `kid` is given. */
  key?: CryptoKey | Uint8Array
  alg?: string
  kid?: string
  typ?: string
}

/**
 * A stand-in hub for tests: an ES256 key pair, its JWKS served over real
 * HTTP at `/.well-known/jwks.json`, and grants signed the way the hub signs them.
 */
export const startFakeHub = async ({ keysAvailable = true } = {}) => {
  const { publicKey, privateKey } = await generateKeyPair('ES256')
  const jwk = await exportJWK(publicKey)
  const kid = await calculateJwkThumbprint(jwk)
  const app = createApp({
    name: 'fake-hub',
    version: '0.0.0',
    logger: createLogger({ name: 'fake-hub', level: 'silent' }),
  })
  app.get('/.well-known/jwks.json', (c) =>
    keysAvailable
      ? c.json({ keys: [{ ...jwk, kid, alg: 'ES256', use: 'sig' }] })
      : c.json({ error: 'down' }, 503),
  )
  const server = await startTestServer(app)

  const issueGrant = ({
    matchId = randomUUID(),
    model = TEST_MODEL,
    mtok = 1,
    audience = TEST_ENDPOINT,
    issuer = server.url,
    expiresIn = 600,
    omit = [],
    key = privateKey,
    alg = 'ES256',
    kid: headerKid = kid,
    typ = 'JWT',
  }: IssueGrantOptions = {}) => {
    const now = Math.floor(Date.now() / 1000)
    const claims: Record<string, unknown> = {
      iss: issuer,
      sub: matchId,
      aud: audience,
      iat: now + Math.min(0, expiresIn) - 60,
      exp: now + expiresIn,
      jti: randomUUID(),
      model,
      mtok,
    }
    for (const name of omit) delete claims[name]
    return new SignJWT(claims).setProtectedHeader({ alg, kid: headerKid, typ }).sign(key)
  }

  /** An unsigned (`alg: none`) token carrying valid-looking claims. */
  const issueUnsignedGrant = async (options: IssueGrantOptions = {}) => {
    const signed = await issueGrant(options)
    const payload = signed.split('.')[1]
    const header = base64url.encode(JSON.stringify({ alg: 'none', kid, typ: 'JWT' }))
    return `${header}.${payload}.`
  }

  return {
    url: server.url,
    jwksUrl: `${server.url}/.well-known/jwks.json`,
    kid,
    issueGrant,
    issueUnsignedGrant,
    close: server.close,
  }
}
export type FakeHub = Awaited<ReturnType<typeof startFakeHub>>

import { execFile } from 'node:child_process'
import { createPrivateKey, type KeyObject, randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Hono } from 'hono'
import { SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { serveLocal } from '../serve-local.ts'
import { type CdpApiKey, createCdpApiKey } from './cdp-api-key.ts'
import { type CdpFacilitator, startCdpFacilitator } from './start-cdp-facilitator.ts'

// The stand-in's own checks, with JWTs a test signs: the payments package's
// tests drive it with Coinbase's SDK, and the chain tier puts it in front of
// the devnet's real facilitator.
const ec = createCdpApiKey('ec')
const ed = createCdpApiKey('ed25519')
const forwarded: string[] = []
let upstream: Awaited<ReturnType<typeof serveLocal>>
let cdp: CdpFacilitator

const privateKeyOf = (key: CdpApiKey): KeyObject => {
  if (key.secret.startsWith('-----BEGIN')) return createPrivateKey(key.secret)
  const bytes = Buffer.from(key.secret, 'base64')
  return createPrivateKey({
    key: {
      kty: 'OKP',
      crv: 'Ed25519',
      d: bytes.subarray(0, 32).toString('base64url'),
      x: bytes.subarray(32).toString('base64url'),
    },
    format: 'jwk',
  })
}

/** A JWT shaped as CDP's SDKs make it, with what a test changes. */
const jwtFor = (
  uri: string,
  {
    key = ec,
    signWith = key,
    nbf = 0,
    lifetime = 120,
    nonce = randomBytes(16).toString('hex'),
    claims = {},
  }: {
    key?: CdpApiKey
    signWith?: CdpApiKey
    nbf?: number
    lifetime?: number
    /** `null`: none. */
    nonce?: string | null
    claims?: Record<string, unknown>
  } = {},
) => {
  const now = Math.floor(Date.now() / 1000) + nbf
  return new SignJWT({ sub: key.id, iss: 'cdp', uris: [uri], ...claims })
    .setProtectedHeader({
      alg: signWith.secret.startsWith('-----BEGIN') ? 'ES256' : 'EdDSA',
      kid: key.id,
      typ: 'JWT',
      ...(nonce === null ? {} : { nonce }),
    })
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + lifetime)
    .sign(privateKeyOf(signWith))
}

const callWith = async (jwt: string | undefined, path = '/verify', method = 'POST') =>
  fetch(`${cdp.url}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(jwt ? { authorization: `Bearer ${jwt}` } : {}),
    },
    ...(method === 'POST' ? { body: '{"x402Version":2}' } : {}),
  })

beforeAll(async () => {
  const app = new Hono()
  app.all('*', async (c) => {
    forwarded.push(`${c.req.method} ${c.req.path} ${c.req.header('authorization') ?? ''}`)
    return c.json({ isValid: true, seen: c.req.method === 'POST' ? await c.req.json() : null })
  })
  upstream = await serveLocal(app.fetch)
  cdp = await startCdpFacilitator({ upstream: upstream.url, keys: [ec, ed] })
})
afterAll(async () => {
  await cdp?.stop()
  await upstream?.close()
})

describe('the CDP facilitator stand-in', () => {
  const uri = (path: string, method = 'POST') =>
    `${method} ${new URL(cdp.url).host}/platform/v2/x402${path}`

  test('a JWT of either key kind naming the call passes, and the call is forwarded without it', async () => {
    forwarded.length = 0
    for (const key of [ec, ed]) {
      const answer = await callWith(await jwtFor(uri('/verify'), { key }))
      expect(answer.status).toBe(200)
      expect(await answer.json()).toEqual({ isValid: true, seen: { x402Version: 2 } })
    }
    const supported = await callWith(await jwtFor(uri('/supported', 'GET')), '/supported', 'GET')
    expect(supported.status).toBe(200)
    expect(forwarded).toEqual(['POST /verify ', 'POST /verify ', 'GET /supported '])
    expect(
      cdp
        .calls()
        .slice(-3)
        .map((call) => [call.status, call.kid]),
    ).toEqual([
      [200, ec.id],
      [200, ed.id],
      [200, ec.id],
    ])
  })

  test.each([
    ['no JWT', async () => undefined, /no bearer JWT/],
    ['a stale one', () => jwtFor(uri('/verify'), { nbf: -200 }), /"exp" claim/],
    ['one not yet valid', () => jwtFor(uri('/verify'), { nbf: 60 }), /"nbf" claim/],
    ['one living past 120 s', () => jwtFor(uri('/verify'), { lifetime: 600 }), /more than 120 s/],
    [
      'one signed by another key',
      () => jwtFor(uri('/verify'), { signWith: createCdpApiKey('ec') }),
      /signature/,
    ],
    [
      'an Ed25519 key signing for an EC key id',
      () => jwtFor(uri('/verify'), { key: ec, signWith: ed }),
      // jose names the header's alg on Node 22; Node 24's WebCrypto refuses the key type first.
      /"alg"|Invalid key type/,
    ],
    [
      'an unknown key',
      () => jwtFor(uri('/verify'), { key: createCdpApiKey('ed25519') }),
      /unknown key/,
    ],
    ['one for another path', () => jwtFor(uri('/settle')), /do not name POST/],
    ['one for another method', () => jwtFor(uri('/verify', 'GET')), /do not name POST/],
    [
      'one for another host',
      () => jwtFor('POST api.cdp.coinbase.com/platform/v2/x402/verify'),
      /do not name/,
    ],
    [
      'one whose sub is not its key',
      () => jwtFor(uri('/verify'), { claims: { sub: 'someone' } }),
      /sub/,
    ],
    [
      'one from another issuer',
      () => jwtFor(uri('/verify'), { claims: { iss: 'me' } }),
      /"iss" claim/,
    ],
    ['one without a nonce', () => jwtFor(uri('/verify'), { nonce: null }), /no nonce/],
  ])('refuses %s with 401, forwarding nothing', async (_name, make, reason) => {
    forwarded.length = 0
    const answer = await callWith(await make())
    expect(answer.status).toBe(401)
    expect(await answer.json()).toEqual({
      errorType: 'unauthorized',
      errorMessage: expect.stringMatching(reason),
    })
    expect(forwarded).toEqual([])
  })

  test('a JWT is good for one call: its nonce replayed is refused', async () => {
    const jwt = await jwtFor(uri('/verify'))
    expect((await callWith(jwt)).status).toBe(200)
    const replay = await callWith(jwt)
    expect(replay.status).toBe(401)
    expect(await replay.json()).toMatchObject({ errorMessage: 'nonce already used' })
  })

  test('over HTTPS, a process trusting the certificate through NODE_EXTRA_CA_CERTS is served', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'cdp-stand-in-tls-'))
    try {
      // A self-signed certificate for 127.0.0.1, made for this run.
      await promisify(execFile)('openssl', [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(folder, 'key.pem'),
        '-out',
        join(folder, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ])
      const [cert, key] = await Promise.all(
        ['cert.pem', 'key.pem'].map((name) => readFile(join(folder, name), 'utf8')),
      )
      const secure = await startCdpFacilitator({
        upstream: upstream.url,
        keys: [ed],
        tls: { cert: cert!, key: key! },
      })
      try {
        expect(secure.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/platform\/v2\/x402$/)
        const jwt = await jwtFor(`POST ${new URL(secure.url).host}/platform/v2/x402/verify`, {
          key: ed,
        })
        const script = `fetch(process.argv[1], { method: 'POST', headers: { authorization: 'Bearer ' + process.argv[2] }, body: '{}' })
          .then((answer) => answer.text().then((body) => console.log(answer.status, body)))`
        const run = (env: NodeJS.ProcessEnv) =>
          promisify(execFile)(process.execPath, ['-e', script, `${secure.url}/verify`, jwt], {
            env,
          }).then(
            ({ stdout }) => stdout.trim(),
            (error: Error & { stderr?: string }) => error.stderr ?? error.message,
          )
        // Untrusted first (its nonce is not spent: the TLS handshake fails before any request).
        expect(await run({ PATH: process.env.PATH })).toMatch(
          /self-signed certificate|fetch failed/,
        )
        expect(
          await run({ PATH: process.env.PATH, NODE_EXTRA_CA_CERTS: join(folder, 'cert.pem') }),
        ).toBe('200 {"isValid":true,"seen":{}}')
      } finally {
        await secure.stop()
      }
    } finally {
      await rm(folder, { recursive: true, force: true })
    }
  })
})

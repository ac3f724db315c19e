import { exportSPKI, generateKeyPair } from 'jose'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createLoginVerifier, type LoginVerifier } from './login-token.ts'
import { createLocalIssuer, type LocalIssuer } from './testing/local-issuer.ts'

let issuer: LocalIssuer
let verify: LoginVerifier

beforeAll(async () => {
  issuer = await createLocalIssuer()
  verify = createLoginVerifier({ issuers: [issuer.trustedIssuer()] })
})
afterAll(() => issuer.close())

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

describe('valid tokens', () => {
  test('default: ES256', async () => {
    const token = await issuer.sign({ sub: 'did:privy:alice' })
    expect(await verify(token)).toEqual({
      ok: true,
      subject: 'did:privy:alice',
      issuer: issuer.issuer,
      method: 'jwt',
    })
  })

  test('RS256', async () => {
    const token = await issuer.sign({ sub: 'dyn-user-1' }, { alg: 'RS256' })
    expect(await verify(token)).toMatchObject({ ok: true, subject: 'dyn-user-1' })
  })

  test('behavior: expired within the clock tolerance still passes', async () => {
    const token = await issuer.sign({}, { expiresIn: -10 })
    expect(await verify(token)).toMatchObject({ ok: true })
  })

  test('behavior: the JWKS is fetched once and cached', async () => {
    const own = await createLocalIssuer()
    const verifyOwn = createLoginVerifier({ issuers: [own.trustedIssuer()] })
    for (let i = 0; i < 5; i++) expect((await verifyOwn(await own.sign())).ok).toBe(true)
    expect(own.jwksRequests()).toBe(1)
    await own.close()
  })

  test('behavior: an injected fetch is used for the keys', async () => {
    const urls: string[] = []
    const verifyWithFetch = createLoginVerifier(
      { issuers: [issuer.trustedIssuer()] },
      {
        fetch: (input, init) => {
          urls.push(String(input))
          return fetch(input, init)
        },
      },
    )
    expect((await verifyWithFetch(await issuer.sign())).ok).toBe(true)
    expect(urls).toEqual([issuer.jwksUrl])
  })

  test('behavior: several audiences may be trusted', async () => {
    const verifyMany = createLoginVerifier({
      issuers: [issuer.trustedIssuer({ audience: ['https://a.example', 'https://b.example'] })],
    })
    const token = await issuer.sign({ aud: 'https://b.example' })
    expect((await verifyMany(token)).ok).toBe(true)
  })
})

describe('rejected tokens', () => {
  const reasonOf = async (token: string, verifier: LoginVerifier = verify) => {
    const result = await verifier(token)
    return result.ok ? 'accepted' : result.reason
  }

  test('behavior: wrong issuer', async () => {
    expect(await reasonOf(await issuer.sign({ iss: 'https://evil.example' }))).toBe(
      'unknown issuer',
    )
  })

  test('behavior: no iss at all', async () => {
    expect(await reasonOf(await issuer.sign({ iss: undefined }))).toBe('unknown issuer')
  })

  test('behavior: wrong audience', async () => {
    expect(await reasonOf(await issuer.sign({ aud: 'someone-else' }))).toBe('wrong audience')
  })

  test('behavior: RS256 when only ES256 is allowed', async () => {
    const esOnly = createLoginVerifier({
      issuers: [issuer.trustedIssuer({ algorithms: ['ES256'] })],
    })
    const token = await issuer.sign({}, { alg: 'RS256' })
    expect(await reasonOf(token, esOnly)).toBe('algorithm not allowed')
  })

  test('behavior: HS256 signed with the public key as the secret', async () => {
    const jwks = (await (await fetch(issuer.jwksUrl)).json()) as { keys: unknown[] }
    const secret = new TextEncoder().encode(JSON.stringify(jwks.keys[0]))
    const token = await issuer.sign({}, { alg: 'HS256', key: secret, kid: issuer.kids.ES256 })
    expect(await reasonOf(token)).toBe('algorithm not allowed')
  })

  test('behavior: alg none', async () => {
    const claims = { iss: issuer.issuer, aud: issuer.audience, sub: 'x', exp: 2e9 }
    expect(await reasonOf(`${encode({ alg: 'none' })}.${encode(claims)}.`)).toBe(
      'algorithm not allowed',
    )
  })

  test('behavior: expired', async () => {
    expect(await reasonOf(await issuer.sign({}, { expiresIn: -120 }))).toBe('expired')
  })

  test('behavior: not yet valid', async () => {
    const nbf = Math.floor(Date.now() / 1000) + 300
    expect(await reasonOf(await issuer.sign({ nbf }))).toBe('not yet valid')
  })

  test('behavior: forged with another key under the same kid', async () => {
    const other = await generateKeyPair('ES256')
    const token = await issuer.sign({}, { key: other.privateKey, kid: issuer.kids.ES256 })
    expect(await reasonOf(token)).toBe('bad signature')
  })

  test('behavior: payload changed after signing', async () => {
    const [header, , signature] = (await issuer.sign({ sub: 'alice' })).split('.')
    const claims = { iss: issuer.issuer, aud: issuer.audience, sub: 'mallory', exp: 2e9 }
    expect(await reasonOf(`${header}.${encode(claims)}.${signature}`)).toBe('bad signature')
  })

  test('behavior: a kid the JWKS does not have', async () => {
    expect(await reasonOf(await issuer.sign({}, { kid: 'rotated-away' }))).toBe('unknown key')
  })

  test('behavior: no sub', async () => {
    expect(await reasonOf(await issuer.sign({ sub: undefined }))).toBe('invalid claims')
  })

  test('behavior: a sub the database cannot hold (U+0000, over 200 characters)', async () => {
    for (const sub of ['ali\u0000ce', 'a'.repeat(201)])
      expect(await reasonOf(await issuer.sign({ sub }))).toBe('invalid claims')
  })

  test('behavior: Dynamic tokens need the user:basic scope', async () => {
    const dynamic = createLoginVerifier({ issuers: [issuer.trustedIssuer({ kind: 'dynamic' })] })
    const pending = await issuer.sign({ scope: 'requiresAdditionalAuth' }, { alg: 'RS256' })
    const done = await issuer.sign({ scope: 'user:basic' }, { alg: 'RS256' })
    expect(await reasonOf(pending, dynamic)).toBe('invalid claims')
    expect(await reasonOf(done, dynamic)).toBe('accepted')
  })

  test('behavior: the issuer keys cannot be fetched', async () => {
    const gone = await createLocalIssuer()
    const trusted = gone.trustedIssuer()
    const token = await gone.sign()
    await gone.close()
    const verifyGone = createLoginVerifier({ issuers: [trusted] }, { jwksTimeoutMs: 1000 })
    expect(await reasonOf(token, verifyGone)).toBe('keys unavailable')
  })

  test('behavior: garbage never throws', async () => {
    const publicPem = await exportSPKI((await generateKeyPair('ES256')).publicKey)
    const inputs = ['', 'x', 'a.b.c', '...', 'not a token', publicPem, 'é.é.é', 'x'.repeat(9000)]
    for (const input of inputs) expect(await reasonOf(input)).toBe('malformed')
    expect(await reasonOf(undefined as unknown as string)).toBe('malformed')
  })
})

test('behavior: a bad issuer list is a configuration fault', () => {
  expect(() =>
    createLoginVerifier({
      issuers: [
        { issuer: 'x', audience: 'y', jwksUrl: 'http://keys.example/jwks', algorithms: ['ES256'] },
      ],
    }),
  ).toThrow(/https/)
})

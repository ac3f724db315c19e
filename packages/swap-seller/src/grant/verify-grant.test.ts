import { createServer } from 'node:net'
import { generateKeyPair } from 'jose'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { type FakeHub, startFakeHub, TEST_ENDPOINT, TEST_MODEL } from '../testing/start-fake-hub.ts'
import { getHubJwks } from './get-hub-jwks.ts'
import { verifyGrant } from './verify-grant.ts'

let hub: FakeHub
const options = () => ({ hubJwksUrl: hub.jwksUrl, endpoint: TEST_ENDPOINT })

beforeAll(async () => {
  hub = await startFakeHub()
})
afterAll(() => hub.close())

const rejection = (bearer: string | Promise<string>, extra: object = {}) =>
  Promise.resolve(bearer).then((token) =>
    verifyGrant(token, { ...options(), ...extra }).then(
      () => expect.unreachable('grant accepted'),
      (error: { name: string; reason: string; shortMessage: string }) => ({
        name: error.name,
        reason: error.reason,
        message: error.shortMessage,
      }),
    ),
  )

test('default: a hub grant for this endpoint verifies', async () => {
  const token = await hub.issueGrant({ matchId: 'b9f1c1e4-0000-4000-8000-000000000001', mtok: 3 })
  const grant = await verifyGrant(token, options())
  expect(grant).toMatchObject({
    matchId: 'b9f1c1e4-0000-4000-8000-000000000001',
    model: TEST_MODEL,
    mtok: 3,
    issuer: hub.url,
  })
  expect(grant.expiresAt.getTime()).toBeGreaterThan(Date.now())
})

test('behavior: the endpoint may carry a trailing slash on either side', async () => {
  const token = await hub.issueGrant({ audience: `${TEST_ENDPOINT}/` })
  await expect(verifyGrant(token, options())).resolves.toMatchObject({ mtok: 1 })
  const plain = await hub.issueGrant()
  await expect(
    verifyGrant(plain, { ...options(), endpoint: `${TEST_ENDPOINT}/` }),
  ).resolves.toMatchObject({ mtok: 1 })
})

test('behavior: an issuer, when configured, must match', async () => {
  const token = await hub.issueGrant()
  await expect(verifyGrant(token, { ...options(), issuer: hub.url })).resolves.toBeDefined()
  expect(await rejection(token, { issuer: 'https://other-hub.example' })).toMatchInlineSnapshot(`
    {
      "message": "grant was issued by another hub",
      "name": "GrantError",
      "reason": "wrong_issuer",
    }
  `)
})

test('behavior: a caller-supplied key getter is used instead of the URL', async () => {
  const token = await hub.issueGrant()
  const jwks = getHubJwks(hub.jwksUrl)
  await expect(verifyGrant(token, { jwks, endpoint: TEST_ENDPOINT })).resolves.toBeDefined()
})

test('error: expired grant', async () => {
  expect(await rejection(hub.issueGrant({ expiresIn: -600 }))).toMatchInlineSnapshot(`
    {
      "message": "grant expired: re-read the match for a fresh one",
      "name": "GrantError",
      "reason": "expired",
    }
  `)
})

test('error: expiry within the clock tolerance still passes, beyond it fails', async () => {
  const token = await hub.issueGrant({ expiresIn: -10 })
  await expect(verifyGrant(token, options())).resolves.toBeDefined()
  expect((await rejection(token, { clockToleranceSeconds: 0 })).reason).toBe('expired')
})

test('error: grant for another endpoint', async () => {
  expect(
    await rejection(hub.issueGrant({ audience: 'https://other-seller.example/v1' })),
  ).toMatchInlineSnapshot(`
    {
      "message": "grant is not for https://seller.example/v1",
      "name": "GrantError",
      "reason": "wrong_audience",
    }
  `)
})

test('error: forged grant signed by another key under the hub kid', async () => {
  const forger = await generateKeyPair('ES256')
  expect(await rejection(hub.issueGrant({ key: forger.privateKey }))).toMatchInlineSnapshot(`
    {
      "message": "grant signature does not match a hub key",
      "name": "GrantError",
      "reason": "bad_signature",
    }
  `)
})

test('error: a kid the hub never published', async () => {
  const forger = await generateKeyPair('ES256')
  const token = hub.issueGrant({ key: forger.privateKey, kid: 'made-up' })
  expect((await rejection(token)).reason).toBe('bad_signature')
})

test('error: wrong algorithms (HS256 with a guessable secret, ES384, none)', async () => {
  const secret = new TextEncoder().encode('a-shared-secret-of-thirty-two-by')
  const hs256 = await rejection(hub.issueGrant({ key: secret, alg: 'HS256' }))
  expect(hs256).toEqual({
    name: 'GrantError',
    reason: 'bad_signature',
    message: 'grant must be signed with ES256',
  })
  const p384 = await generateKeyPair('ES384')
  expect((await rejection(hub.issueGrant({ key: p384.privateKey, alg: 'ES384' }))).reason).toBe(
    'bad_signature',
  )
  expect((await rejection(hub.issueUnsignedGrant())).reason).toBe('bad_signature')
})

test('error: garbage and empty bearers are malformed', async () => {
  expect(await rejection('not-a-jwt')).toMatchInlineSnapshot(`
    {
      "message": "grant is not a well-formed JWT",
      "name": "GrantError",
      "reason": "malformed",
    }
  `)
  expect((await rejection('a.b.c')).reason).toBe('malformed')
  expect((await rejection('   ')).reason).toBe('malformed')
})

test('error: a token typed as something other than a JWT', async () => {
  expect((await rejection(hub.issueGrant({ typ: 'at+jwt' }))).reason).toBe('malformed')
})

test('error: missing or invalid claims', async () => {
  for (const claim of ['mtok', 'model', 'sub', 'exp', 'jti', 'iss', 'aud']) {
    expect((await rejection(hub.issueGrant({ omit: [claim] }))).reason, claim).toBe(
      'missing_claims',
    )
  }
  expect(await rejection(hub.issueGrant({ mtok: 0 }))).toMatchInlineSnapshot(`
    {
      "message": "grant claim "mtok" is invalid: Too small: expected number to be >0",
      "name": "GrantError",
      "reason": "missing_claims",
    }
  `)
  expect((await rejection(hub.issueGrant({ mtok: 1.5 }))).reason).toBe('missing_claims')
  expect((await rejection(hub.issueGrant({ mtok: '5' }))).reason).toBe('missing_claims')
})

test('error: unreachable hub keys are a fault, not a rejected grant', async () => {
  const closedPort = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
  const token = await hub.issueGrant()
  const down = await startFakeHub({ keysAvailable: false })
  for (const hubJwksUrl of [`http://127.0.0.1:${closedPort}/jwks.json`, down.jwksUrl]) {
    await expect(verifyGrant(token, { hubJwksUrl, endpoint: TEST_ENDPOINT })).rejects.toMatchObject(
      { name: 'HubKeysUnavailableError', shortMessage: 'hub keys unavailable' },
    )
  }
  await down.close()
})

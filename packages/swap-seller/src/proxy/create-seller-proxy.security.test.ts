import { createLogger, postJson, startTestServer } from '@agents/service-kit'
import { generateKeyPair } from 'jose'
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest'
import { startFakeHub, TEST_ENDPOINT, TEST_MODEL } from '../testing/start-fake-hub.ts'
import {
  type SellerFixture,
  startSellerFixture,
  TEST_UPSTREAM_KEY,
} from '../testing/start-seller-fixture.ts'
import { createSellerProxy } from './create-seller-proxy.ts'

let seller: SellerFixture
beforeAll(async () => {
  seller = await startSellerFixture()
})
afterAll(() => seller.close())
beforeEach(() => seller.resetUpstream())

const rejected = async (bearer: string | Promise<string>) => {
  const response = await seller.complete(await bearer)
  expect(response.status).toBe(401)
  expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"')
  expect(response.json.error).toBe('grant rejected')
  expect(seller.upstream.calls).toHaveLength(0)
  return response.json.reason as string
}

test('error: no bearer is 401 grant required with a Bearer challenge', async () => {
  const response = await seller.complete(undefined)
  expect(response.status).toBe(401)
  expect(response.json).toEqual({ error: 'grant required' })
  expect(response.headers.get('www-authenticate')).toBe('Bearer')

  for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ']) {
    const other = await postJson(seller.completionsUrl, {}, { authorization })
    expect(other.status, authorization).toBe(401)
    expect(other.json).toEqual({ error: 'grant required' })
  }
  expect(seller.upstream.calls).toHaveLength(0)
})

test('error: the grant is checked before the body', async () => {
  const response = await postJson(seller.completionsUrl, 'not json', { authorization: 'Bearer x' })
  expect(response.status).toBe(401)
  expect(response.json.reason).toBe('malformed')
})

test('error: garbage bearer', async () => {
  expect(await rejected('garbage')).toBe('malformed')
  const response = await seller.complete('garbage')
  expect(response.json).toEqual({
    error: 'grant rejected',
    reason: 'malformed',
    detail: 'grant is not a well-formed JWT',
  })
})

test('error: expired grant', async () => {
  expect(await rejected(seller.hub.issueGrant({ expiresIn: -600 }))).toBe('expired')
})

test('error: grant for another endpoint', async () => {
  const grant = seller.hub.issueGrant({ audience: 'https://other-seller.example/v1' })
  expect(await rejected(grant)).toBe('wrong_audience')
})

test('error: forged grant signed by another key under the hub kid', async () => {
  const forger = await generateKeyPair('ES256')
  expect(await rejected(seller.hub.issueGrant({ key: forger.privateKey }))).toBe('bad_signature')
})

test('error: grant from another hub (its own keys and kid)', async () => {
  const other = await startFakeHub()
  expect(await rejected(other.issueGrant())).toBe('bad_signature')
  await other.close()
})

test('error: wrong alg (HS256, none)', async () => {
  const secret = new TextEncoder().encode('a-shared-secret-of-thirty-two-by')
  expect(await rejected(seller.hub.issueGrant({ key: secret, alg: 'HS256' }))).toBe('bad_signature')
  expect(await rejected(seller.hub.issueUnsignedGrant())).toBe('bad_signature')
})

test('error: grant without mtok', async () => {
  expect(await rejected(seller.hub.issueGrant({ omit: ['mtok'] }))).toBe('missing_claims')
})

test('behavior: the seller key never appears in a response, whatever the outcome', async () => {
  const grant = await seller.hub.issueGrant()
  const responses = [
    await seller.complete(grant),
    await seller.complete(grant, { stream: true }),
    await seller.complete(grant, { model: 'x' }),
    await seller.complete('garbage'),
  ]
  seller.resetUpstream({ chunkText: ` leaked ${TEST_UPSTREAM_KEY}`, completionTokens: 3 })
  const leaky = await seller.complete(grant, { stream: true })
  expect(leaky.text).toContain('upstream unavailable')
  responses.push(leaky)
  seller.resetUpstream({ status: 500, errorBody: { error: `key ${TEST_UPSTREAM_KEY} failed` } })
  responses.push(await seller.complete(grant))
  seller.resetUpstream({ status: 429, errorBody: { error: `rate limit for ${TEST_UPSTREAM_KEY}` } })
  responses.push(await seller.complete(grant))
  for (const response of responses) {
    expect(response.text).not.toContain(TEST_UPSTREAM_KEY)
    response.headers.forEach((value) => {
      expect(value).not.toContain(TEST_UPSTREAM_KEY)
    })
  }
})

test('error: unreachable hub keys are a 503, not a rejected grant', async () => {
  const down = await startFakeHub({ keysAvailable: false })
  const proxy = await startTestServer(
    createSellerProxy({
      hubJwksUrl: down.jwksUrl,
      endpoint: TEST_ENDPOINT,
      upstream: { baseUrl: seller.upstream.url, apiKey: TEST_UPSTREAM_KEY },
      logger: createLogger({ name: 'test', level: 'silent' }),
    }),
  )
  const response = await postJson(
    `${proxy.url}/v1/chat/completions`,
    { model: TEST_MODEL, messages: [{ role: 'user', content: 'hi' }] },
    { authorization: `Bearer ${await down.issueGrant()}` },
  )
  await Promise.all([proxy.close(), down.close()])
  expect(response.status).toBe(503)
  expect(response.json).toEqual({ error: 'hub keys unavailable' })
  expect(seller.upstream.calls).toHaveLength(0)
})

import { createLogger, postJson, startTestServer } from '@agents/service-kit'
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest'
import { TEST_ENDPOINT, TEST_MODEL } from '../testing/start-fake-hub.ts'
import { startFakeUpstream } from '../testing/start-fake-upstream.ts'
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

test('default: a valid grant is served; the upstream sees the seller key, never the grant', async () => {
  const grant = await seller.hub.issueGrant()
  const response = await seller.complete(grant, { temperature: 0.2, tools: [] })
  expect(response.status).toBe(200)
  expect(response.json).toMatchObject({
    object: 'chat.completion',
    choices: [{ message: { content: 'hi' } }],
    usage: { total_tokens: 30 },
  })
  expect(response.headers.get('x-grant-tokens-remaining')).toBe('999970')
  expect(seller.upstream.calls).toHaveLength(1)
  const [call] = seller.upstream.calls
  expect(call?.authorization).toBe(`Bearer ${TEST_UPSTREAM_KEY}`)
  expect(JSON.stringify(call)).not.toContain(grant)
  // Other OpenAI fields pass through; the completion limit is set to what remains.
  expect(call?.body).toMatchObject({
    temperature: 0.2,
    tools: [],
    max_completion_tokens: 1_000_000,
  })
  expect(response.text).not.toContain(TEST_UPSTREAM_KEY)
})

test('behavior: tokens are counted per match and refused once mtok is used', async () => {
  // The upstream ignores the cap: the second call overshoots, the seller absorbs it.
  seller.resetUpstream({ promptTokens: 100_000, completionTokens: 500_000, honourCap: false })
  const matchId = crypto.randomUUID()
  const first = await seller.complete(await seller.hub.issueGrant({ matchId, mtok: 1 }))
  expect(first.status).toBe(200)
  expect(first.headers.get('x-grant-tokens-remaining')).toBe('400000')

  // A re-read grant for the same match (new jti) shares the same allowance.
  const second = await seller.complete(await seller.hub.issueGrant({ matchId, mtok: 1 }))
  expect(second.status).toBe(200)
  expect(second.headers.get('x-grant-tokens-remaining')).toBe('0')
  expect(seller.upstream.calls[1]?.body.max_completion_tokens).toBe(400_000)

  const third = await seller.complete(await seller.hub.issueGrant({ matchId, mtok: 1 }))
  expect(third.status).toBe(403)
  expect(third.headers.get('x-grant-tokens-remaining')).toBe('0')
  expect(third.json).toEqual({
    error: 'grant spent',
    detail: 'this match has used every token it bought; create a new intent on the hub to buy more',
    limitTokens: 1_000_000,
    tokensRemaining: 0,
    matchId,
    grantModel: TEST_MODEL,
  })
  expect(seller.upstream.calls).toHaveLength(2)

  // Another match is unaffected.
  expect((await seller.complete(await seller.hub.issueGrant({ mtok: 1 }))).status).toBe(200)
})

test('behavior: max_tokens and max_completion_tokens are capped to what remains', async () => {
  seller.resetUpstream({ promptTokens: 0, completionTokens: 900_000 })
  const matchId = crypto.randomUUID()
  const issue = () => seller.hub.issueGrant({ matchId, mtok: 1 })
  expect((await seller.complete(await issue())).status).toBe(200)

  await seller.complete(await issue(), { max_tokens: 50 })
  await seller.complete(await issue(), { max_tokens: 500_000 })
  expect(seller.upstream.calls[1]?.body).toMatchObject({ max_tokens: 50 })
  expect(seller.upstream.calls[1]?.body).not.toHaveProperty('max_completion_tokens')
  expect(seller.upstream.calls[2]?.body).toMatchObject({ max_tokens: 99_950 })

  const fresh = await seller.hub.issueGrant({ mtok: 1 })
  await seller.complete(fresh, { max_completion_tokens: 2_000_000, max_tokens: 10, n: 4 })
  // Four choices may each run to the limit: the cap is split between them.
  expect(seller.upstream.calls[3]?.body).toMatchObject({
    max_completion_tokens: 250_000,
    max_tokens: 10,
  })
})

test('behavior: concurrent calls on one match never spend past the allowance', async () => {
  // Honest upstream: the cap bounds the completion; a prompt of 0 leaves no residual edge.
  seller.resetUpstream({ promptTokens: 0, completionTokens: 300_000, delayMs: 20 })
  const matchId = crypto.randomUUID()
  const grants = await Promise.all(
    Array.from({ length: 10 }, () => seller.hub.issueGrant({ matchId, mtok: 1 })),
  )
  const responses = await Promise.all(grants.map((grant) => seller.complete(grant)))
  const served = responses.filter((response) => response.status === 200)
  const spent = served.reduce((sum, response) => sum + response.json.usage.total_tokens, 0)
  expect(served).toHaveLength(4)
  expect(spent).toBe(1_000_000)
  expect(responses.filter((response) => response.status === 403)).toHaveLength(6)
  expect(seller.upstream.calls).toHaveLength(4)
})

test('error: a model the grant does not cover is refused with 403', async () => {
  const response = await seller.complete(await seller.hub.issueGrant(), { model: 'gpt-other' })
  expect(response.status).toBe(403)
  expect(response.json).toMatchObject({
    error: 'model not covered by grant',
    grantModel: TEST_MODEL,
  })
  expect(seller.upstream.calls).toHaveLength(0)
})

test('behavior: stream: true answers an event stream ending in [DONE]; stream: false JSON', async () => {
  const response = await seller.complete(await seller.hub.issueGrant(), { stream: true })
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
  expect(response.headers.get('x-grant-tokens-remaining')).toBe('1000000')
  expect(response.text.trimEnd().endsWith('data: [DONE]')).toBe(true)
  expect(response.text).not.toContain('"usage"')
  expect((await seller.complete(await seller.hub.issueGrant(), { stream: false })).status).toBe(200)
})

test('error: a body without model or messages is a 400 with issues', async () => {
  const grant = await seller.hub.issueGrant()
  const response = await seller.complete(grant, { messages: [] })
  expect(response.status).toBe(400)
  expect(response.json.error).toBe('invalid request')
  expect(response.json.issues[0].path).toEqual(['messages'])
  const noModel = await seller.complete(grant, { model: undefined })
  expect(noModel.json.issues[0].path).toEqual(['model'])
  const notJson = await fetch(seller.completionsUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${grant}`, 'content-type': 'text/plain' },
    body: 'hi',
  })
  expect(notJson.status).toBe(415)
})

test('error: upstream down is a 502 and costs nothing', async () => {
  seller.resetUpstream({ status: 503 })
  const matchId = crypto.randomUUID()
  const response = await seller.complete(await seller.hub.issueGrant({ matchId }))
  expect(response.status).toBe(502)
  expect(response.json).toMatchObject({ error: 'upstream unavailable', matchId })
  expect(response.headers.get('x-grant-tokens-remaining')).toBe('1000000')
})

test('error: upstream unreachable is a 502', async () => {
  const gone = await startFakeUpstream()
  await gone.close()
  const proxy = await startTestServer(
    createSellerProxy({
      hubJwksUrl: seller.hub.jwksUrl,
      endpoint: TEST_ENDPOINT,
      upstream: { baseUrl: gone.url, apiKey: TEST_UPSTREAM_KEY },
      logger: createLogger({ name: 'test', level: 'silent' }),
    }),
  )
  const response = await postJson(
    `${proxy.url}/v1/chat/completions`,
    { model: TEST_MODEL, messages: [{ role: 'user', content: 'hi' }] },
    { authorization: `Bearer ${await seller.hub.issueGrant()}` },
  )
  await proxy.close()
  expect(response.status).toBe(502)
  expect(response.json).toMatchObject({ error: 'upstream unavailable' })
})

test('error: the upstream refusing the seller key is a 502 that does not echo the key', async () => {
  seller.resetUpstream({
    status: 401,
    errorBody: { error: { message: `Incorrect API key provided: ${TEST_UPSTREAM_KEY}` } },
  })
  const response = await seller.complete(await seller.hub.issueGrant())
  expect(response.status).toBe(502)
  expect(response.text).not.toContain(TEST_UPSTREAM_KEY)
})

test('error: a buyer mistake the upstream rejects passes through with its status', async () => {
  seller.resetUpstream({ status: 400 })
  const response = await seller.complete(await seller.hub.issueGrant())
  expect(response.status).toBe(400)
  expect(response.json).toEqual({
    error: { message: 'upstream says no', type: 'invalid_request_error' },
  })
  expect(response.headers.get('x-grant-tokens-remaining')).toBe('1000000')
})

test('error: an upstream answer without usage is withheld with 502', async () => {
  seller.resetUpstream({ omitUsage: true })
  const response = await seller.complete(await seller.hub.issueGrant())
  expect(response.status).toBe(502)
  expect(response.json).toMatchObject({ error: 'upstream reported no usage' })
  expect(response.json).not.toHaveProperty('choices')
})

import OpenAI, { APIError } from 'openai'
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest'
import { TEST_MODEL } from '../testing/start-fake-hub.ts'
import { type SellerFixture, startSellerFixture } from '../testing/start-seller-fixture.ts'
import { countPromptTokens } from './count-prompt-tokens.ts'
import { getTokenCounter } from './get-token-counter.ts'

let seller: SellerFixture
beforeAll(async () => {
  seller = await startSellerFixture()
})
afterAll(() => seller.close())
beforeEach(() => seller.resetUpstream())

const messages = [{ role: 'user' as const, content: 'hello there, seller' }]
/** What the proxy estimates for `messages` (o200k_base for the test model). */
const promptEstimate = async () =>
  countPromptTokens({ model: TEST_MODEL, messages }, await getTokenCounter(TEST_MODEL))

/** The official OpenAI client as the buyer, with the grant as its API key. */
const buyer = (grant: string) =>
  new OpenAI({
    apiKey: grant,
    baseURL: seller.completionsUrl.replace(/\/chat\/completions$/, ''),
    maxRetries: 0,
  })

/** What the match has left, read from a one-token non-streaming call's header (then undone). */
const remainingAfter = async (matchId: string, mtok = 1) => {
  seller.resetUpstream({ promptTokens: 0, completionTokens: 0 })
  const response = await seller.complete(await seller.hub.issueGrant({ matchId, mtok }))
  return Number(response.headers.get('x-grant-tokens-remaining'))
}

test('default: the openai client, non-streaming, is served through the proxy', async () => {
  const completion = await buyer(await seller.hub.issueGrant()).chat.completions.create({
    model: TEST_MODEL,
    messages,
  })
  expect(completion.choices[0]?.message.content).toBe('hi')
  expect(completion.usage?.total_tokens).toBe(30)
})

test('default: the openai client streams; chunks pass through and end in [DONE]; usage is asked for upstream and metered exactly, but not shown to a buyer who did not ask', async () => {
  const matchId = crypto.randomUUID()
  const stream = await buyer(await seller.hub.issueGrant({ matchId })).chat.completions.create({
    model: TEST_MODEL,
    messages,
    stream: true,
  })
  const chunks = []
  for await (const chunk of stream) chunks.push(chunk)
  expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(
    ' hi'.repeat(20),
  )
  expect(chunks.every((chunk) => chunk.usage === undefined)).toBe(true)
  expect(seller.upstream.calls[0]?.body).toMatchObject({
    stream: true,
    stream_options: { include_usage: true },
  })
  // The upstream's usage (10 + 20) is what the match was charged, not the estimate.
  expect(await remainingAfter(matchId)).toBe(1_000_000 - 30)
})

test('behavior: a buyer who asks for usage gets the usage chunk', async () => {
  const stream = await buyer(await seller.hub.issueGrant()).chat.completions.create({
    model: TEST_MODEL,
    messages,
    stream: true,
    stream_options: { include_usage: true },
  })
  const chunks = []
  for await (const chunk of stream) chunks.push(chunk)
  expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { total_tokens: 30 } })
})

test('behavior: chunks reach the buyer as they arrive, before the upstream has finished', async () => {
  seller.resetUpstream({ completionTokens: 5, chunkDelayMs: 150 })
  const started = Date.now()
  const stream = await buyer(await seller.hub.issueGrant()).chat.completions.create({
    model: TEST_MODEL,
    messages,
    stream: true,
  })
  const arrivals: number[] = []
  for await (const chunk of stream)
    if (chunk.choices[0]?.delta.content) arrivals.push(Date.now() - started)
  expect(arrivals).toHaveLength(5)
  // The first token arrived long before the last: nothing was buffered to the end.
  expect(arrivals[4]! - arrivals[0]!).toBeGreaterThanOrEqual(450)
})

test('behavior: an upstream that sends no usage is metered with the tokenizer, prompt included', async () => {
  seller.resetUpstream({ omitUsage: true, completionTokens: 12 })
  const matchId = crypto.randomUUID()
  const stream = await buyer(await seller.hub.issueGrant({ matchId })).chat.completions.create({
    model: TEST_MODEL,
    messages,
    stream: true,
  })
  let text = ''
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
  expect(text).toBe(' hi'.repeat(12))
  // ' hi' is one o200k_base token: 12 completion tokens on top of the prompt's estimate.
  expect(await remainingAfter(matchId)).toBe(1_000_000 - (await promptEstimate()) - 12)
})

test('behavior: a stream that breaks off midway ends in an error for the buyer and is metered for what was delivered', async () => {
  seller.resetUpstream({ completionTokens: 50, breakAfterChunks: 7, chunkDelayMs: 5 })
  const matchId = crypto.randomUUID()
  const stream = await buyer(await seller.hub.issueGrant({ matchId })).chat.completions.create({
    model: TEST_MODEL,
    messages,
    stream: true,
  })
  let text = ''
  const consume = async () => {
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
  }
  const error = await consume().catch((caught: unknown) => caught)
  expect(error).toBeInstanceOf(APIError)
  expect((error as APIError).message).toContain('upstream stream broke off')
  expect(text).toBe(' hi'.repeat(7))
  expect(await remainingAfter(matchId)).toBe(1_000_000 - (await promptEstimate()) - 7)
})

test('behavior: the allowance running out mid-stream stops the stream with a final error event, and the grant is spent', async () => {
  const matchId = crypto.randomUUID()
  // Spend all but 40 tokens of the match.
  seller.resetUpstream({ promptTokens: 999_960, completionTokens: 0 })
  await seller.complete(await seller.hub.issueGrant({ matchId }))
  // An upstream that ignores the completion cap and would send 200 tokens.
  seller.resetUpstream({ completionTokens: 200, honourCap: false, omitUsage: true })
  const stream = await buyer(await seller.hub.issueGrant({ matchId })).chat.completions.create({
    model: TEST_MODEL,
    messages,
    stream: true,
  })
  let text = ''
  const consume = async () => {
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
  }
  const error = await consume().catch((caught: unknown) => caught)
  expect(error).toBeInstanceOf(APIError)
  expect((error as APIError).message).toContain('grant spent')
  // Only what fitted in the 40 tokens left, after the prompt's estimate, was delivered.
  expect(text).toBe(' hi'.repeat(40 - (await promptEstimate())))
  expect(seller.upstream.calls[0]?.body.max_completion_tokens).toBe(40 - (await promptEstimate()))

  const after = await seller.complete(await seller.hub.issueGrant({ matchId }), { stream: true })
  expect(after.status).toBe(403)
  expect(after.json).toMatchObject({ error: 'grant spent', tokensRemaining: 0 })
})

test('behavior: a buyer who hangs up mid-stream is charged what was delivered, and the match is free again at once', async () => {
  seller.resetUpstream({ completionTokens: 1000, chunkDelayMs: 20, omitUsage: true })
  const matchId = crypto.randomUUID()
  const controller = new AbortController()
  const stream = await buyer(await seller.hub.issueGrant({ matchId })).chat.completions.create(
    { model: TEST_MODEL, messages, stream: true },
    { signal: controller.signal },
  )
  let received = 0
  const consume = async () => {
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) received += 1
      if (received === 3) controller.abort()
    }
  }
  await consume().catch(() => {})
  const started = Date.now()
  const left = await remainingAfter(matchId)
  // Not 1000 chunks x 20 ms: the upstream stream was cancelled with the buyer's.
  expect(Date.now() - started).toBeLessThan(2000)
  const charged = 1_000_000 - left - (await promptEstimate())
  expect(charged).toBeGreaterThanOrEqual(3)
  expect(charged).toBeLessThan(20)
})

test('error: a prompt larger than what the match has left is refused before the upstream', async () => {
  const matchId = crypto.randomUUID()
  seller.resetUpstream({ promptTokens: 999_995, completionTokens: 0 })
  await seller.complete(await seller.hub.issueGrant({ matchId }))
  seller.resetUpstream()
  const response = await seller.complete(await seller.hub.issueGrant({ matchId }), {
    stream: true,
  })
  expect(response.status).toBe(400)
  expect(response.json).toMatchObject({ error: 'prompt is larger than the tokens remaining' })
  expect(seller.upstream.calls).toHaveLength(0)
})

test('error: an upstream 4xx to a stream passes through unbilled; a 5xx is 502', async () => {
  const matchId = crypto.randomUUID()
  seller.resetUpstream({ status: 400 })
  const rejected = await seller.complete(await seller.hub.issueGrant({ matchId }), {
    stream: true,
  })
  expect(rejected.status).toBe(400)
  expect(rejected.json).toMatchObject({ error: { message: 'upstream says no' } })
  seller.resetUpstream({ status: 500 })
  const failed = await seller.complete(await seller.hub.issueGrant({ matchId }), { stream: true })
  expect(failed.status).toBe(502)
  expect(await remainingAfter(matchId)).toBe(1_000_000)
})

import { componentNameClashes, openApiGaps, undocumentedRoutes } from '@agents/service-kit'
import { openApiResponseProblems } from '@agents/service-kit/openapi-response-problems'
import { validate } from '@readme/openapi-parser'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { SwapRail } from './start.ts'
import { startTestSwapRail } from './testing.ts'

let rail: SwapRail
beforeAll(async () => {
  rail = await startTestSwapRail()
}, 60_000)
afterAll(() => rail?.close())

test('behavior: GET /openapi.json documents every route with schemas that name their fields, one schema a name, and validates', async () => {
  const response = await fetch(`${rail.url}/openapi.json`)
  expect(response.status).toBe(200)
  const document = await response.json()
  expect(document.openapi).toBe('3.1.0')
  expect.soft(undocumentedRoutes(rail.app, document)).toEqual([])
  expect.soft(componentNameClashes(rail.app)).toEqual([])
  expect.soft(openApiGaps(document)).toEqual([])
  const result = await validate(structuredClone(document))
  expect(result.valid ? [] : result.errors).toEqual([])
})

test('behavior: the 201 of POST /v1/intents validates against /openapi.json, waiting (match: null) and matched', async () => {
  const document = await (await fetch(`${rail.url}/openapi.json`)).json()
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${rail.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    return { status: response.status, body: await response.json() }
  }
  const problems = (path: string, answer: { status: number; body: unknown }) =>
    openApiResponseProblems(document, { method: 'post', path, ...answer })
  const model = 'openapi-response-model'
  const waiting = await post('/v1/intents', { model, mtok: 1, maxPriceUsd: '1' })
  expect(waiting).toMatchObject({ status: 201, body: { match: null } })
  expect(problems('/v1/intents', waiting)).toEqual([])
  const offer = await post('/v1/offers', {
    endpoint: 'https://seller.example/v1',
    payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    model,
    mtok: 2,
    priceUsd: '1',
  })
  expect(offer.status).toBe(201)
  expect(problems('/v1/offers', offer)).toEqual([])
  const matched = await post('/v1/intents', { model, mtok: 1, maxPriceUsd: '1' })
  expect(matched).toMatchObject({ status: 201, body: { match: { status: 'awaiting_payment' } } })
  expect(problems('/v1/intents', matched)).toEqual([])
  // The helper does refuse: a match that is neither an object nor null.
  expect(
    problems('/v1/intents', { ...waiting, body: { ...waiting.body, match: 'none' } }),
  ).not.toEqual([])
})

import { componentNameClashes, openApiGaps, undocumentedRoutes } from '@agents/service-kit'
import { openApiResponseProblems } from '@agents/service-kit/openapi-response-problems'
import { validate } from '@readme/openapi-parser'
import { expect, test } from 'vitest'
import { CREATOR, callOperation, useTestRouter } from './testing.ts'

const router = useTestRouter()

test('behavior: GET /openapi.json documents every route with schemas that name their fields, one schema a name, and validates', async () => {
  const response = await fetch(`${router.server.url}/openapi.json`)
  expect(response.status).toBe(200)
  const document = await response.json()
  expect(document.openapi).toBe('3.1.0')
  expect.soft(undocumentedRoutes(router.server.app, document)).toEqual([])
  expect.soft(componentNameClashes(router.server.app)).toEqual([])
  expect.soft(openApiGaps(document)).toEqual([])
  const result = await validate(structuredClone(document))
  expect(result.valid ? [] : result.errors).toEqual([])
})

test('behavior: draft_intent answers match their schema, an unreadable intent (intent: null) included', async () => {
  const document = await (await fetch(`${router.server.url}/openapi.json`)).json()
  const draft = async (intent: unknown) => {
    const answer = await callOperation(router.server, 'draft_intent', { intent })
    return { status: answer.status, body: answer.json }
  }
  for (const intent of [
    { name: 'Good', symbol: 'GOOD', chainId: 8453, pad: 'clanker-v4', creator: CREATOR },
    { name: 'No pad', symbol: 'NOPE', chainId: 8453, creator: CREATOR },
  ]) {
    const { status, body } = await draft(intent)
    expect(status).toBe(200)
    const problems = openApiResponseProblems(document, {
      method: 'post',
      path: '/api/v1/draft_intent',
      status,
      body,
    })
    expect(problems).toEqual([])
  }
  expect((await draft({ name: 'No pad', symbol: 'NOPE', chainId: 8453 })).body.intent).toBeNull()
})

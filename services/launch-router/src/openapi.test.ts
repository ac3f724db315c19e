import { validate } from '@readme/openapi-parser'
import { expect, test } from 'vitest'
import { OPERATIONS, useTestRouter } from './testing.ts'

const router = useTestRouter()

test('default: GET /openapi.json is a valid OpenAPI 3.1.0 document, version 0.1.0', async () => {
  const document = await (await fetch(`${router.server.url}/openapi.json`)).json()
  expect(document.openapi).toBe('3.1.0')
  expect(document.info.version).toBe('0.1.0')
  const result = await validate(structuredClone(document))
  expect(result.valid ? [] : result.errors).toEqual([])
  expect(result.valid).toBe(true)
})

test('behavior: every operation documents its request and 200/400/422 responses', async () => {
  const document = await (await fetch(`${router.server.url}/openapi.json`)).json()
  for (const operation of OPERATIONS) {
    const post = document.paths[`/api/v1/${operation}`]?.post
    expect(post, operation).toBeDefined()
    expect(post.requestBody.required).toBe(true)
    expect(post.requestBody.content['application/json'].schema).toBeDefined()
    for (const status of ['200', '400', '422']) {
      expect(
        post.responses[status]?.content?.['application/json']?.schema,
        `${operation} ${status}`,
      ).toBeDefined()
    }
  }
  const schemas = document.components.schemas
  expect(schemas.EmptyBody).toMatchObject({ type: 'object', additionalProperties: false })
  expect(schemas.IntentBody).toMatchObject({ required: ['intent'], additionalProperties: false })
  expect(schemas.LaunchIntent.required).toEqual(['name', 'symbol', 'chainId', 'pad', 'creator'])
})

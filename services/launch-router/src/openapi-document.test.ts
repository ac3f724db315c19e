import { openApiGaps, undocumentedRoutes } from '@agents/service-kit'
import { validate } from '@readme/openapi-parser'
import { expect, test } from 'vitest'
import { useTestRouter } from './testing.ts'

const router = useTestRouter()

test('behavior: GET /openapi.json documents every route with schemas that name their fields, and validates', async () => {
  const response = await fetch(`${router.server.url}/openapi.json`)
  expect(response.status).toBe(200)
  const document = await response.json()
  expect(document.openapi).toBe('3.1.0')
  expect.soft(undocumentedRoutes(router.server.app, document)).toEqual([])
  expect.soft(openApiGaps(document)).toEqual([])
  const result = await validate(structuredClone(document))
  expect(result.valid ? [] : result.errors).toEqual([])
})

import { componentNameClashes, openApiGaps, undocumentedRoutes } from '@agents/service-kit'
import { validate } from '@readme/openapi-parser'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { Venue } from './start.ts'
import { startTestVenue } from './testing.ts'

let venue: Venue
beforeAll(async () => {
  venue = await startTestVenue()
}, 60_000)
afterAll(() => venue?.close())

test('behavior: GET /openapi.json documents every route with schemas that name their fields, one schema a name, and validates', async () => {
  const response = await fetch(`${venue.url}/openapi.json`)
  expect(response.status).toBe(200)
  const document = await response.json()
  expect(document.openapi).toBe('3.1.0')
  expect.soft(undocumentedRoutes(venue.app, document)).toEqual([])
  expect.soft(componentNameClashes(venue.app)).toEqual([])
  expect.soft(openApiGaps(document)).toEqual([])
  const result = await validate(structuredClone(document))
  expect(result.valid ? [] : result.errors).toEqual([])
})

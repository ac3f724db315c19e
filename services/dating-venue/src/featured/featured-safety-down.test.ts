import { createServer } from 'node:http'
import { PAYMENT_REQUIRED_HEADER } from '@agents/payments'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { admitPersona } from '../test-helpers.ts'
import { startTestVenue } from '../testing.ts'

// A moderation stand-in (OpenAI's /moderations shape) that the test can take down after the
// persona is admitted: a safety check that cannot run refuses the featured post, before any 402.
let down = false
const moderation = createServer((request, response) => {
  let body = ''
  request.on('data', (chunk) => (body += chunk))
  request.on('end', () => {
    response.statusCode = down ? 503 : 200
    response.setHeader('content-type', 'application/json')
    // An array input gets one result per text, in order, as OpenAI answers it.
    const { input } = JSON.parse(body) as { input: string | string[] }
    const count = Array.isArray(input) ? input.length : 1
    const result = { flagged: false, categories: {} }
    response.end(JSON.stringify({ results: Array.from({ length: count }, () => result) }))
  })
})
let venue: Venue
beforeAll(async () => {
  await new Promise<void>((resolve) => moderation.listen(0, '127.0.0.1', resolve))
  const { port } = moderation.address() as { port: number }
  venue = await startTestVenue({
    env: { MODERATION_URL: `http://127.0.0.1:${port}/v1`, SAFETY_TIMEOUT_MS: '1000' },
  })
}, 60_000)
afterAll(async () => {
  await venue?.close()
  await new Promise<void>((resolve) => moderation.close(() => resolve()))
})

it('a safety check that cannot run: 503, nothing asked, nothing charged', async () => {
  const { agent, answer } = await admitPersona(venue)
  expect(answer.json.admitted).toBe(true)
  down = true
  const response = await fetch(`${venue.url}/api/featured/post`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${agent.credential}` },
    body: JSON.stringify({
      personaId: answer.json.personaId,
      board: 'seeking',
      body: 'A calm sailor.',
    }),
  })
  expect(response.status).toBe(503)
  expect(await response.json()).toEqual({
    error: 'safety check unavailable: nothing was charged; retry later',
  })
  expect(response.headers.get(PAYMENT_REQUIRED_HEADER)).toBeNull()
})

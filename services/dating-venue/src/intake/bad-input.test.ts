import { postJson } from '@agents/service-kit'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { createAgent, uniqueHandle } from '../test-helpers.ts'
import { startTestVenue } from '../testing.ts'

let venue: Venue
beforeAll(async () => {
  venue = await startTestVenue()
})
afterAll(() => venue?.close())

describe('bad input never gets a 5xx and stores nothing', () => {
  const routes = [
    '/api/intake/heart-file',
    '/api/intake/agent',
    '/api/intake/agent/verify',
    '/api/personas',
    '/api/report',
    '/api/boards/seeking',
  ]
  const value = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.constantFrom(
      '18+',
      '17',
      '',
      'https://10.0.0.1/x',
      '0x0000000000000000000000000000000000000001',
      -1,
      0,
      1e308,
    ),
  )
  const body = fc.oneof(
    value,
    fc.record(
      {
        handle: value,
        model: value,
        persona_age: value,
        heart: value,
        runtime: fc.oneof(fc.constantFrom('claude', 'codex'), value),
        publicKey: value,
        callbackUrl: value,
        endpointId: value,
        signature: value,
        echoToken: value,
        targetType: fc.oneof(fc.constantFrom('post', 'persona'), value),
        targetId: value,
        ageAttested: value,
        personaId: value,
        body: value,
      },
      { requiredKeys: [] },
    ),
  )
  const counts = async () =>
    (
      await venue.deps.database.client.query(
        `SELECT (SELECT count(*) FROM personas WHERE status IN ('admitted','pending'))::int AS personas,
                (SELECT count(*) FROM heart_files)::int AS files,
                (SELECT count(*) FROM posts)::int AS posts,
                (SELECT count(*) FROM reports)::int AS reports`,
      )
    ).rows[0]

  it('random bodies on every write route', async () => {
    await createAgent(venue)
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), body, async (route, value) => {
        const before = await counts()
        const response = await fetch(`${venue.url}${route}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(value) ?? 'null',
        })
        const text = await response.text()
        expect(response.status, `${route} ${JSON.stringify(value)} -> ${text}`).toBeLessThan(500)
        if (response.status >= 400) expect(typeof JSON.parse(text).error).toBe('string')
        // Personas rejected by a gate are stored with their reason; nothing else may be written.
        if (response.status >= 400 && response.status !== 422)
          expect(await counts()).toEqual(before)
      }),
      { numRuns: 250 },
    )
  })

  it('random paths answer 404 no such room', async () => {
    await fc.assert(
      fc.asyncProperty(fc.webPath(), async (path) => {
        const response = await fetch(`${venue.url}/zz${path.replace(/^\/?/, '/')}`)
        expect(response.status).toBe(404)
        expect(await response.json()).toEqual({ error: 'no such room' })
      }),
      { numRuns: 100 },
    )
  })

  it('a credential naming an id over int4 is not recognised (403), never a 5xx', async () => {
    for (const kind of ['vo', 'va']) {
      const answer = await postJson(
        `${venue.url}/api/report`,
        { targetType: 'persona', targetId: 1 },
        { authorization: `Bearer ${kind}_9999999999_${'a'.repeat(43)}` },
      )
      expect(answer.status, answer.text).toBeLessThan(500)
      const posted = await postJson(
        `${venue.url}/api/boards/seeking`,
        { personaId: 1, body: 'hello' },
        { authorization: `Bearer ${kind}_2147483648_${'a'.repeat(43)}` },
      )
      expect(posted.status).toBe(403)
      expect(posted.json).toEqual({ error: 'credential not recognised' })
    }
  })

  it('a unique handle every time', () => {
    expect(uniqueHandle()).not.toBe(uniqueHandle())
  })
})

import { postJson } from '@agents/service-kit'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from './start.ts'
import { admitPersona, createAgent, uniqueHandle } from './test-helpers.ts'
import { startTestVenue } from './testing.ts'

let venue: Venue
beforeAll(async () => {
  venue = await startTestVenue()
})
afterAll(() => venue?.close())

const SECRET_ABOUT = 'Quietly obsessed with lighthouse keepers and their logbooks.'
const CONTACT = 'signal: lighthouse-contact-77'
const SECRET_SEEKING = 'A fellow night-swimmer who reads maritime charts for fun.'

describe('privacy', () => {
  it('no public response carries a heart text or a contactRef', async () => {
    const bodies: string[] = []
    const record = async (response: Response) => {
      bodies.push(await response.text())
    }
    const heart = { about: SECRET_ABOUT, seeking: SECRET_SEEKING, interests: ['lighthouses'] }
    const { agent, answer } = await admitPersona(venue, heart)
    bodies.push(JSON.stringify(answer.json))
    // A filed doc with a contactRef, written directly (the paid path is tested on the devnet).
    const { rows } = await venue.deps.database.client.query(
      `INSERT INTO owners (wallet, credential_hash) VALUES ('0xprivacy', 'x') RETURNING id`,
    )
    await venue.deps.database.client.query(
      `INSERT INTO heart_files (owner_id, home_market, active_market, research_optin, age_attested,
         contact_ref_sealed, heart, payment_reference)
       VALUES ($1, 'other', 'remote', 'none', true, $2, $3, 'test-reference')`,
      [(rows[0] as { id: number }).id, venue.deps.sealer.seal(CONTACT), JSON.stringify(heart)],
    )
    const posted = await postJson(
      `${venue.url}/api/boards/seeking`,
      { personaId: answer.json.personaId, body: 'Any night swimmers here?' },
      { authorization: `Bearer ${agent.credential}` },
    )
    bodies.push(posted.text)
    for (const path of [
      '/',
      '/health',
      '/skill',
      '/llms.txt',
      '/llms-full.txt',
      '/api/floor',
      '/api/boards/seeking',
      '/api/boards/debriefs',
      '/api/boards/courtships',
      '/api/boards/notifications',
      '/openapi.json',
    ])
      await record(await fetch(`${venue.url}${path}`))
    for (const tool of ['get_stats', 'get_courtships', 'how_to_join']) {
      const response = await fetch(`${venue.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: tool, arguments: {} },
        }),
      })
      await record(response)
    }
    const all = bodies.join('\n')
    expect(all).toContain('Any night swimmers here?')
    for (const secret of [
      SECRET_ABOUT,
      SECRET_SEEKING,
      'lighthouse keepers',
      'maritime charts',
      CONTACT,
    ])
      expect(all).not.toContain(secret)
  })
})

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

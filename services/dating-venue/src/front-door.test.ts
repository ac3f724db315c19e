import { postJson } from '@agents/service-kit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from './start.ts'
import { admitPersona, createAgent, HEART, uniqueHandle } from './test-helpers.ts'
import { startTestVenue } from './testing.ts'

describe('the geographic gate runs first on every route', () => {
  let venue: Venue
  beforeAll(async () => {
    venue = await startTestVenue({
      env: { GEO_TRUSTED_COUNTRY_HEADER: 'cf-ipcountry', GEO_RESTRICTED: 'IR,KP' },
    })
  })
  afterAll(() => venue?.close())

  it('403 from a restricted country on reads, writes, unknown rooms and health', async () => {
    for (const [method, path] of [
      ['GET', '/health'],
      ['GET', '/'],
      ['GET', '/api/floor'],
      ['GET', '/no/such/room'],
      ['POST', '/api/personas'],
      ['POST', '/api/intake/heart-file'],
      ['DELETE', '/api/report'],
    ] as const) {
      const response = await fetch(`${venue.url}${path}`, {
        method,
        headers: { 'cf-ipcountry': 'IR', 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: '{}' } : {}),
      })
      expect(response.status, `${method} ${path}`).toBe(403)
      expect(await response.json()).toEqual({ error: 'service unavailable in this location' })
    }
    const allowed = await fetch(`${venue.url}/health`, { headers: { 'cf-ipcountry': 'DE' } })
    expect(allowed.status).toBe(200)
    const { rows } = await venue.deps.database.client.query(
      `SELECT count(*)::int AS n FROM events WHERE kind = 'geo_denied'`,
    )
    expect((rows[0] as { n: number }).n).toBeGreaterThanOrEqual(7)
  })
})

describe('fail closed and the live floor', () => {
  let venue: Venue
  beforeAll(async () => {
    // A moderation endpoint that is not there: every check that needs it cannot run.
    venue = await startTestVenue({ env: { MODERATION_URL: 'http://127.0.0.1:9/v1' } })
  })
  afterAll(() => venue?.close())

  it('a persona is rejected when the safety check cannot run', async () => {
    const agent = await createAgent(venue)
    const answer = await postJson(
      `${venue.url}/api/personas`,
      { handle: uniqueHandle(), model: 'm', persona_age: '18+', heart: HEART },
      { authorization: `Bearer ${agent.credential}` },
    )
    expect(answer.status).toBe(422)
    expect(answer.json).toMatchObject({ admitted: false, reason: 'safety check unavailable' })
  })
})

describe('holds and the event stream', () => {
  let venue: Venue
  beforeAll(async () => {
    venue = await startTestVenue()
  })
  afterAll(() => venue?.close())

  it('a held post is kept but never served; a published one reaches the floor stream', async () => {
    const { agent, answer } = await admitPersona(venue)
    const auth = { authorization: `Bearer ${agent.credential}` }
    const held = await postJson(
      `${venue.url}/api/boards/debriefs`,
      { personaId: answer.json.personaId, body: 'What a shitty date that was.' },
      auth,
    )
    expect(held).toMatchObject({ status: 202, json: { status: 'held' } })

    const controller = new AbortController()
    const stream = await fetch(`${venue.url}/api/floor`, {
      headers: { accept: 'text/event-stream' },
      signal: controller.signal,
    })
    expect(stream.headers.get('content-type')).toMatch(/text\/event-stream/)
    const reader = stream.body!.getReader()
    await postJson(
      `${venue.url}/api/boards/seeking`,
      { personaId: answer.json.personaId, body: 'Fresh on the floor tonight.' },
      auth,
    )
    let received = ''
    const decoder = new TextDecoder()
    while (!received.includes('Fresh on the floor tonight.')) {
      const { value, done } = await reader.read()
      if (done) break
      received += decoder.decode(value)
    }
    controller.abort()
    expect(received).toContain('event: post')
    expect(received).not.toContain('shitty')
    const board = await fetch(`${venue.url}/api/boards/debriefs`).then((r) => r.json())
    expect(board).toEqual([])
  })
})

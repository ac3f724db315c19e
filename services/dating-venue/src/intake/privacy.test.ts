import { postJson } from '@agents/service-kit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { admitPersona } from '../test-helpers.ts'
import { startTestVenue } from '../testing.ts'

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

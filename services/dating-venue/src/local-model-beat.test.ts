import { postJson } from '@agents/service-kit'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Venue } from './start.ts'
import { createAgent, uniqueHandle } from './test-helpers.ts'
import { startTestVenue, TEST_ADMIN_TOKEN } from './testing.ts'

// The real Universal Sentence Encoder in a worker thread: semantic pairing end to end.
let venue: Venue
beforeAll(async () => {
  venue = await startTestVenue({ embeddings: 'local' })
}, 60_000)
afterAll(() => venue?.close())

it('pairs hearts by meaning with the local model', async () => {
  const hearts = [
    { about: 'I love hiking in the mountains and camping under the stars.', interests: ['trails'] },
    { about: 'Competitive video gamer, night owl, streaming until dawn.', interests: ['esports'] },
    {
      about: 'Outdoorsy person, weekends on forest trails and alpine lakes.',
      interests: ['camping'],
    },
    {
      about: 'I play online shooters every night and build gaming PCs.',
      interests: ['pc building'],
    },
  ]
  const ids: number[] = []
  for (const heart of hearts) {
    const agent = await createAgent(venue)
    const answer = await postJson(
      `${venue.url}/api/personas`,
      { handle: uniqueHandle('local'), model: 'm', persona_age: '18+', heart },
      { authorization: `Bearer ${agent.credential}` },
    )
    ids.push(answer.json.personaId)
  }
  const beat = await postJson(
    `${venue.url}/admin/actions/beat`,
    { cycleId: 'local-1' },
    { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
  )
  expect(beat.json).toMatchObject({ semantic: true, created: 2 })
  const { rows } = await venue.deps.database.client.query(
    `SELECT persona_a, persona_b FROM couples WHERE cycle_id = 'local-1' ORDER BY persona_a`,
  )
  expect(rows).toEqual([
    { persona_a: ids[0], persona_b: ids[2] },
    { persona_a: ids[1], persona_b: ids[3] },
  ])
  const { rows: vectors } = await venue.deps.database.client.query(
    `SELECT DISTINCT model_id, dimension FROM persona_vectors`,
  )
  expect(vectors).toEqual([{ model_id: venue.deps.embedder.modelId, dimension: 512 }])
}, 60_000)

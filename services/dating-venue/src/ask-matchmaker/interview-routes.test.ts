import { postJson } from '@agents/service-kit'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { createAgent } from '../test-helpers.ts'
import { signInToChat } from '../testing/chat-fixtures.ts'
import { startTestVenue } from '../testing.ts'

// A venue with no chat model: the matchmaker still drafts docs, through the interview.
let venue: Venue
beforeAll(async () => {
  venue = await startTestVenue()
}, 60_000)
afterAll(() => venue?.close())

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  postJson(`${venue.url}${path}`, body, headers)

const signedInAdult = async () => (await signInToChat(venue.url)).cookie

it('without a model, asking runs the interview (free): the draft grows, contact details are refused', async () => {
  const cookie = await signedInAdult()
  const first = await post(
    '/api/chat/ask',
    { message: 'I restore old sailboats and read history.' },
    { cookie },
  )
  expect(first.status).toBe(200)
  expect(first.json).toMatchObject({
    paidWith: 'interview (free)',
    freeLeft: 3,
    credits: 0,
    draft: { about: 'I restore old sailboats and read history.' },
  })
  expect(first.json.answer).toContain('Who are you hoping to meet?')
  expect(first.json.answer).toContain('Coaching needs the matchmaker model')
  const leaked = await post(
    '/api/chat/draft',
    { answer: 'Mail me at sailor@example.com' },
    { cookie },
  )
  expect(leaked.json).toMatchObject({ accepted: false, complete: false })
  expect(leaked.json.reply).toContain('contact details (email)')
  const seeking = await post('/api/chat/draft', { answer: 'Someone curious and kind.' }, { cookie })
  expect(seeking.json).toMatchObject({
    accepted: true,
    draft: { seeking: 'Someone curious and kind.' },
  })
  const me = await fetch(`${venue.url}/api/chat/me`, { headers: { cookie } }).then((r) => r.json())
  expect(me).toMatchObject({
    freeLeft: 3,
    draft: {
      about: 'I restore old sailboats and read history.',
      seeking: 'Someone curious and kind.',
    },
    question: expect.stringMatching(/casual, dating, long-term/),
  })
})

it('the interview needs a signed-in adult; an agent asking a venue with no model gets 503 before any 402', async () => {
  expect((await post('/api/chat/draft', { answer: 'hi' })).status).toBe(401)
  const agent = await createAgent(venue)
  const answer = await post(
    '/api/chat/ask',
    { message: 'hi' },
    { authorization: `Bearer ${agent.credential}` },
  )
  expect(answer.status).toBe(503)
  expect(answer.json.error).toBe('the matchmaker model is not configured on this venue')
})

import { postJson } from '@agents/service-kit'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { storeExchange } from '../ask-matchmaker/messages.ts'
import type { Venue } from '../start.ts'
import { signInToChat } from '../testing/chat-fixtures.ts'
import { startTestVenue } from '../testing.ts'
import { CHAT_HISTORY_LINES } from './chat-page-routes.ts'

// GET /api/chat/messages: the signed-in wallet's own recent lines, newest last, bounded.
// A venue with no chat model: asking runs the interview, whose exchanges are kept too.
let venue: Venue
beforeAll(async () => {
  venue = await startTestVenue()
}, 60_000)
afterAll(() => venue?.close())

type Conversation = {
  messages: Array<{ role: string; text: string; at: string }>
  more: boolean
  limit: number
  retentionHours: number
}

const read = async (cookie?: string) => {
  const response = await fetch(`${venue.url}/api/chat/messages`, {
    headers: cookie ? { cookie } : {},
  })
  return {
    status: response.status,
    cacheControl: response.headers.get('cache-control'),
    json: (await response.json()) as Conversation & { error?: string },
  }
}

it('401 without a session (or with a made-up one), 403 before the 18+ attestation', async () => {
  const none = await read()
  expect(none.status).toBe(401)
  expect(none.json.error).toBe('sign in with your wallet first')
  expect((await read('venue_chat=made-up')).status).toBe(401)
  const unattested = await signInToChat(venue.url, { attest: false })
  const early = await read(unattested.cookie)
  expect(early.status).toBe(403)
  expect(early.json.error).toBe('attest that you are 18 or older first')
})

it("only the signed-in wallet's lines, newest last; a refused interview answer is not kept; a new session of the same wallet reads the same", async () => {
  const account = privateKeyToAccount(generatePrivateKey())
  const mine = await signInToChat(venue.url, { account })
  const theirs = await signInToChat(venue.url)
  await storeExchange(venue.deps, theirs.wallet, 'Their private question.', 'Their answer.')
  const asked = await postJson(
    `${venue.url}/api/chat/ask`,
    { message: 'I restore old sailboats.' },
    { cookie: mine.cookie },
  )
  expect(asked.status).toBe(200)
  const refused = await postJson(
    `${venue.url}/api/chat/draft`,
    { answer: 'Mail me at sailor@example.com' },
    { cookie: mine.cookie },
  )
  expect(refused.json).toMatchObject({ accepted: false })
  const accepted = await postJson(
    `${venue.url}/api/chat/draft`,
    { answer: 'Someone curious and kind.' },
    { cookie: mine.cookie },
  )
  expect(accepted.json).toMatchObject({ accepted: true })

  const conversation = await read(mine.cookie)
  expect(conversation.status).toBe(200)
  expect(conversation.cacheControl).toBe('no-store')
  expect(conversation.json).toMatchObject({
    more: false,
    limit: CHAT_HISTORY_LINES,
    retentionHours: 24,
  })
  const { messages } = conversation.json
  expect(messages.map(({ role }) => role)).toEqual(['human', 'matchmaker', 'human', 'matchmaker'])
  expect(messages[0]!.text).toBe('I restore old sailboats.')
  expect(messages[1]!.text).toContain('Who are you hoping to meet?')
  expect(messages[2]!.text).toBe('Someone curious and kind.')
  expect(messages[3]!.text).toBe(accepted.json.reply)
  const times = messages.map(({ at }) => Date.parse(at))
  expect([...times].sort((a, b) => a - b)).toEqual(times)
  const all = JSON.stringify(messages)
  expect(all).not.toContain('Their')
  expect(all).not.toContain('sailor@example.com')

  // The other wallet reads its own line only; a new session of the first wallet reads the same.
  expect((await read(theirs.cookie)).json.messages.map(({ text }) => text)).toEqual([
    'Their private question.',
    'Their answer.',
  ])
  const again = await signInToChat(venue.url, { account })
  expect((await read(again.cookie)).json).toEqual(conversation.json)
  // A wallet that never talked reads an empty conversation.
  expect((await read((await signInToChat(venue.url)).cookie)).json.messages).toEqual([])
})

it('the newest 100 lines (more: true past the bound), and nothing older than the retention window', async () => {
  const account = privateKeyToAccount(generatePrivateKey())
  const first = await signInToChat(venue.url, { account })
  for (let n = 0; n < 60; n++)
    await storeExchange(venue.deps, first.wallet, `question ${n}`, `answer ${n}`)
  // A new session of the same wallet (another browser) reads the same conversation.
  const second = await signInToChat(venue.url, { account })
  const bounded = await read(second.cookie)
  expect(bounded.json.more).toBe(true)
  expect(bounded.json.messages).toHaveLength(CHAT_HISTORY_LINES)
  expect(CHAT_HISTORY_LINES).toBe(100)
  // 120 lines kept: the first 20 (exchanges 0-9) left out, the last is the newest.
  expect(bounded.json.messages[0]!.text).toBe('question 10')
  expect(bounded.json.messages.at(-1)!.text).toBe('answer 59')
  expect(bounded.json.messages.map(({ text }) => text)).toEqual(
    Array.from({ length: 50 }, (_, index) => [
      `question ${index + 10}`,
      `answer ${index + 10}`,
    ]).flat(),
  )
  expect((await read(first.cookie)).json).toEqual(bounded.json)

  // Lines older than the window are not shown, even before the sweep deletes them.
  await venue.deps.database.client.query(
    `UPDATE chat_messages SET created_at = now() - interval '25 hours' WHERE speaker = $1`,
    [first.wallet],
  )
  const windowed = await read(second.cookie)
  expect(windowed.json.more).toBe(false)
  expect(windowed.json.messages).toEqual([])
  await venue.deps.database.client.query(
    `UPDATE chat_messages SET created_at = now() WHERE speaker = $1 AND id IN
     (SELECT id FROM chat_messages WHERE speaker = $1 ORDER BY id DESC LIMIT 4)`,
    [first.wallet],
  )
  expect((await read(second.cookie)).json.messages.map(({ text }) => text)).toEqual([
    'question 58',
    'answer 58',
    'question 59',
    'answer 59',
  ])
})

import { postJson } from '@agents/service-kit'
import { testBackends } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { signInToChat } from '../testing/chat-fixtures.ts'
import { type ChatStandIn, startChatStandIn } from '../testing/chat-stand-in.ts'
import { useTestVenue } from '../testing/venue-fixtures.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'

let chat: ChatStandIn
beforeAll(async () => {
  chat = await startChatStandIn()
}, 60_000)
afterAll(async () => {
  await chat?.close()
})

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'a human asking past the outbound budget on $name',
  ({ open }) => {
    let venue: Venue
    // Each client one outside call an hour: one answer of the model.
    const { get } = useTestVenue(
      open,
      (started) => {
        venue = started
      },
      {
        env: {
          get MATCHMAKER_CHAT_URL() {
            return chat.url
          },
          MATCHMAKER_CHAT_TIMEOUT_MS: '2000',
          VENUE_OUTBOUND_BUDGET_PER_CLIENT: '1/3600',
        },
      },
    )

    it('a spent budget is a 503 with Retry-After, and the free message is given back', async () => {
      chat.answer({ status: 200, content: 'Say what a good Sunday looks like to you.' })
      const { cookie } = await signInToChat(venue.url)
      const ask = (message: string) =>
        postJson(`${venue.url}/api/chat/ask`, { message }, { cookie })
      const first = await ask('How do I open a conversation?')
      expect(first.status).toBe(200)
      expect(first.json).toMatchObject({ paidWith: 'free message', freeLeft: 2 })
      const refused = await ask('And how do I close one?')
      expect(refused.status).toBe(503)
      const retryAfter = Number(refused.headers.get('retry-after'))
      expect(retryAfter).toBeGreaterThan(0)
      expect(retryAfter).toBeLessThanOrEqual(3600)
      expect(refused.json).toEqual({
        error: expect.stringContaining('outbound budget spent'),
        budget: 'outbound',
        retryAfter,
      })
      // Not counted: the message refused for the budget is still there to spend.
      expect((await get('/api/chat/me', { cookie })).json.freeLeft).toBe(2)
    })
  },
)

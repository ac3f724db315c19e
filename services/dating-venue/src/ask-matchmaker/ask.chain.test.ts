import type { Devnet } from '@agents/devnet'
import { sharedDevnet } from '@agents/devnet/testing'
import { PAYMENT_REQUIRED_HEADER } from '@agents/payments'
import { postJson } from '@agents/service-kit'
import { rowsOf, testBackends } from '@agents/service-kit/db'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { creditBalance, grantCredits } from '../orders/credits.ts'
import { sweepRetention } from '../retention/retention.ts'
import type { Venue } from '../start.ts'
import { createAgent } from '../test-helpers.ts'
import { signInToChat } from '../testing/chat-fixtures.ts'
import { type ChatStandIn, startChatStandIn } from '../testing/chat-stand-in.ts'
import { startTestVenue, TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'asking the matchmaker on $name',
  ({ open }) => {
    let devnet: Devnet
    let venue: Venue
    let chat: ChatStandIn
    let drop: () => Promise<void>
    beforeAll(async () => {
      const database = await open()
      drop = database.drop
      devnet = await sharedDevnet()
      chat = await startChatStandIn()
      venue = await startTestVenue({
        devnet,
        databaseUrl: database.url,
        env: { MATCHMAKER_CHAT_URL: chat.url, MATCHMAKER_CHAT_TIMEOUT_MS: '2000' },
      })
    }, 120_000)
    afterAll(async () => {
      await venue?.close()
      await chat?.close()
      await devnet?.stop()
      await drop?.()
    })

    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      postJson(`${venue.url}${path}`, body, headers)

    const human = ({ attest = true } = {}) => signInToChat(venue.url, { attest })
    const ask = (cookie: string, message: string) => post('/api/chat/ask', { message }, { cookie })

    it('a human: 401 signed out, 403 not attested, 400 bad messages', async () => {
      expect((await post('/api/chat/ask', { message: 'hi' })).status).toBe(401)
      const unattested = await human({ attest: false })
      const refused = await ask(unattested.cookie, 'hi')
      expect(refused.status).toBe(403)
      expect(refused.json.error).toBe('attest that you are 18 or older first')
      const { cookie } = await human()
      for (const message of ['', 'x'.repeat(2001), 'a\u0000b'])
        expect((await ask(cookie, message)).status).toBe(400)
    })

    it('free messages first (3 a day at no holding), then credits (3 each), then a 402 for 0.10; every answer carries the credits', async () => {
      chat.answer({ status: 200, content: 'Lead with what you love doing on a slow Sunday.' })
      const { cookie, wallet } = await human()
      for (const left of [2, 1, 0]) {
        // Credits held while free messages last stay untouched, and are shown.
        if (left === 0) await grantCredits(venue.deps.database.db, wallet, 4, 'test')
        const answer = await ask(cookie, 'How do I write a good about section?')
        expect(answer.status).toBe(200)
        expect(answer.json).toEqual({
          ok: true,
          answer: 'Lead with what you love doing on a slow Sunday.',
          paidWith: 'free message',
          freeLeft: left,
          credits: left === 0 ? 4 : 0,
        })
      }
      const onCredits = await ask(cookie, 'And the seeking part?')
      expect(onCredits.json).toMatchObject({ paidWith: 'credits', freeLeft: 0, credits: 1 })
      const pay = await ask(cookie, 'One more?')
      expect(pay.status).toBe(402)
      expect(pay.json.accepts[0]).toMatchObject({
        maxAmountRequired: '100000',
        resource: '/api/chat/ask',
      })
      expect(pay.headers.get(PAYMENT_REQUIRED_HEADER)).not.toBeNull()
      expect(await creditBalance(venue.deps.database.db, wallet)).toBe(1)
      const paid = await devnet.x402Fetch(devnet.accounts.payer)(`${venue.url}/api/chat/ask`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie },
        body: JSON.stringify({ message: 'One more?' }),
      })
      expect(paid.status).toBe(200)
      expect(await paid.json()).toMatchObject({ paidWith: 'payment', freeLeft: 0, credits: 1 })
    })

    it('the free messages come back at 00:00 UTC: what was used yesterday does not count today', async () => {
      chat.answer({ status: 200, content: 'Ask about their favourite slow morning.' })
      const { cookie, wallet } = await human()
      for (let i = 0; i < 3; i++) await ask(cookie, 'A first-date question?')
      expect((await ask(cookie, 'One more?')).status).toBe(402)
      // Midnight passes: the day's row now belongs to yesterday (UTC), as it will at 00:00.
      await venue.deps.database.db.execute(
        sql`UPDATE chat_usage SET day = to_char((now() AT TIME ZONE 'UTC') - interval '1 day', 'YYYY-MM-DD') WHERE wallet = ${wallet}`,
      )
      const tomorrow = await ask(cookie, 'A question for the new day?')
      expect(tomorrow.status).toBe(200)
      expect(tomorrow.json).toMatchObject({ paidWith: 'free message', freeLeft: 2 })
      const me = await fetch(`${venue.url}/api/chat/me`, { headers: { cookie } }).then((r) =>
        r.json(),
      )
      expect(me.freeLeft).toBe(2)
      expect(me.resetsAt).toBe(
        `${new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)}T00:00:00.000Z`,
      )
    })

    it('parallel asks never overspend: 3 free and 2 messages of credits answer 5 of 12, the rest are 402', async () => {
      chat.answer({ status: 200, content: 'Say what a good week looks like for you.' })
      const { cookie, wallet } = await human()
      await grantCredits(venue.deps.database.db, wallet, 7, 'test')
      const answers = await Promise.all(
        Array.from({ length: 12 }, () => ask(cookie, 'What should my doc lead with?')),
      )
      const paidWith = answers.filter((a) => a.status === 200).map((a) => a.json.paidWith)
      expect(paidWith.sort()).toEqual([
        'credits',
        'credits',
        'free message',
        'free message',
        'free message',
      ])
      expect(answers.filter((a) => a.status === 402)).toHaveLength(7)
      expect(await creditBalance(venue.deps.database.db, wallet)).toBe(1)
      const [events] = rowsOf<{ total: number }>(
        await venue.deps.database.db.execute(
          sql`SELECT sum(credits)::int AS total FROM credit_events WHERE wallet = ${wallet.toLowerCase()}`,
        ),
      )
      // Every move of the balance has its event: 7 granted, 2 x 3 spent.
      expect(events!.total).toBe(1)
    })

    it('many wallets asking at once (their reservations share statements): each gets exactly its own allowance', async () => {
      chat.answer({ status: 200, content: 'Say what a good week looks like for you.' })
      // Wallet i has 3 free messages and credits for i messages; each asks 6 times at once.
      const humans = await Promise.all([0, 1, 2, 3].map(() => human()))
      for (const [i, { wallet }] of humans.entries())
        await grantCredits(venue.deps.database.db, wallet, 3 * i, 'test')
      const answers = await Promise.all(
        humans.flatMap(({ cookie }, i) =>
          Array.from({ length: 6 }, async () => ({
            i,
            answer: await ask(cookie, 'What should my doc lead with?'),
          })),
        ),
      )
      for (const [i, { wallet }] of humans.entries()) {
        const mine = answers.filter((entry) => entry.i === i).map((entry) => entry.answer)
        const paidWith = mine.filter((a) => a.status === 200).map((a) => a.json.paidWith)
        expect(paidWith.filter((how) => how === 'free message')).toHaveLength(3)
        expect(paidWith.filter((how) => how === 'credits')).toHaveLength(i)
        expect(mine.filter((a) => a.status === 402)).toHaveLength(3 - i)
        expect(await creditBalance(venue.deps.database.db, wallet)).toBe(0)
      }
    })

    it('a withheld message counts; a message the venue could not answer does not', async () => {
      const { cookie } = await human()
      const withheld = await ask(cookie, 'Call me on 415 555 0199 tonight')
      expect(withheld.json).toMatchObject({ ok: true, withheld: expect.any(String), freeLeft: 2 })
      expect(withheld.json.answer).toBeUndefined()
      chat.answer({ status: 500, content: 'down' })
      const down = await ask(cookie, 'Any advice for a first date?')
      expect(down.status).toBe(503)
      chat.answer({ status: 200, content: 'Email them at someone@example.com' })
      const leaked = await ask(cookie, 'Any advice for a first date?')
      expect(leaked.json).toMatchObject({
        withheld: 'the answer carried contact details',
        freeLeft: 1,
      })
      chat.answer({ status: 200, content: 'Pick a quiet place and ask open questions.' })
      expect((await ask(cookie, 'Any advice for a first date?')).json).toMatchObject({
        freeLeft: 0,
      })
    })

    it('chat text is sealed at rest and swept after the window', async () => {
      chat.answer({ status: 200, content: 'A sealed answer about sailing dates.' })
      const { cookie } = await human()
      await ask(cookie, 'A sealed question about sailing dates.')
      const { rows } = await venue.deps.database.client.query(
        'SELECT text_sealed FROM chat_messages',
      )
      expect(JSON.stringify(rows)).not.toContain('sailing')
      await venue.deps.database.client.query(
        "UPDATE chat_messages SET created_at = now() - interval '2 days'",
      )
      // The venue's retention sweep (the chat window of 24 hours; the other periods untouched).
      const swept = await sweepRetention(venue.deps.database, {
        operationalDays: 30,
        identityDays: 30,
        expiredHours: 24,
        chatHours: 24,
      })
      expect(swept.ran && swept.counts.chatMessages).toBeGreaterThan(0)
      const left = await venue.deps.database.client.query(
        'SELECT count(*)::int AS n FROM chat_messages',
      )
      expect((left.rows[0] as { n: number }).n).toBe(0)
    })

    it('an agent pays every answer (agent_ask 0.10 USDC); the model down after payment: credited', async () => {
      const agent = await createAgent(venue)
      const headers = {
        'content-type': 'application/json',
        authorization: `Bearer ${agent.credential}`,
      }
      const unpaid = await post('/api/chat/ask', { message: 'What makes a good opener?' }, headers)
      expect(unpaid.status).toBe(402)
      // A message the safety check withholds is refused before any 402: nobody pays for it.
      const withheld = await post(
        '/api/chat/ask',
        { message: 'Call me on 415 555 0199 tonight' },
        headers,
      )
      expect(withheld.status).toBe(422)
      expect(withheld.json.error).toBe('message withheld by the safety check: nothing was charged')
      expect(withheld.headers.get(PAYMENT_REQUIRED_HEADER)).toBeNull()
      chat.answer({ status: 200, content: 'Ask about something they wrote they love.' })
      const before = await devnet.usdcBalance(devnet.accounts.payee)
      const paid = await devnet.x402Fetch(devnet.accounts.payer)(`${venue.url}/api/chat/ask`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ message: 'What makes a good opener?' }),
      })
      expect(paid.status).toBe(200)
      expect(await paid.json()).toMatchObject({
        ok: true,
        paidWith: 'payment',
        answer: 'Ask about something they wrote they love.',
      })
      expect(await devnet.usdcBalance(devnet.accounts.payee)).toBe(before + 100_000n)
      chat.answer({ status: 500, content: 'down' })
      const credits = await creditBalance(venue.deps.database.db, devnet.accounts.payer.address)
      const down = await devnet.x402Fetch(devnet.accounts.payer)(`${venue.url}/api/chat/ask`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ message: 'And a good second message?' }),
      })
      expect(down.status).toBe(502)
      expect(await down.json()).toMatchObject({
        credited: 3,
        orderId: expect.stringMatching(/^agent_ask:/),
      })
      expect(await creditBalance(venue.deps.database.db, devnet.accounts.payer.address)).toBe(
        credits + 3,
      )
    })
  },
)

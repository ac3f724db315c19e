import type { Devnet } from '@agents/devnet'
import { sharedDevnet } from '@agents/devnet/testing'
import { decodeBase64Json, PAYMENT_REQUIRED_HEADER } from '@agents/payments'
import { testBackends } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { signInToChat } from '../testing/chat-fixtures.ts'
import { type ChatStandIn, startChatStandIn } from '../testing/chat-stand-in.ts'
import { startTestVenue, TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'
import { creditBalance } from './credits.ts'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'chat top-up on $name',
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
      chat.answer({ status: 200, content: 'Say what a good Sunday looks like to you.' })
      venue = await startTestVenue({
        devnet,
        databaseUrl: database.url,
        env: { MATCHMAKER_CHAT_URL: chat.url },
      })
    }, 120_000)
    afterAll(async () => {
      await venue?.close()
      await chat?.close()
      await devnet?.stop()
      await drop?.()
    })

    const topup = (headers: Record<string, string>, body: unknown = {}) =>
      fetch(`${venue.url}/api/chat/topup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      })
    const paid = (pay: typeof fetch, cookie: string) =>
      pay(`${venue.url}/api/chat/topup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie },
        body: '{}',
      })
    const me = async (cookie: string) =>
      (await (await fetch(`${venue.url}/api/chat/me`, { headers: { cookie } })).json()) as {
        credits: number
        freeLeft: number
      }
    const ask = async (cookie: string, message: string) => {
      const response = await fetch(`${venue.url}/api/chat/ask`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie },
        body: JSON.stringify({ message }),
      })
      // biome-ignore lint/suspicious/noExplicitAny: tests read the answer by path
      return { status: response.status, json: (await response.json()) as any }
    }
    const sql = async (text: string, values: unknown[]) =>
      (await venue.deps.database.client.query(text, values)).rows as Array<Record<string, unknown>>

    it('refuses before any 402: 401 signed out, 403 not attested, 400 a body that chooses anything', async () => {
      const signedOut = await topup({})
      expect(signedOut.status).toBe(401)
      expect(await signedOut.json()).toMatchObject({ error: 'sign in with your wallet first' })
      const unattested = await signInToChat(venue.url, { attest: false })
      const refused = await topup({ cookie: unattested.cookie })
      expect(refused.status).toBe(403)
      expect(await refused.json()).toMatchObject({ error: 'attest that you are 18 or older first' })
      expect(refused.headers.get(PAYMENT_REQUIRED_HEADER)).toBeNull()
      const { cookie } = await signInToChat(venue.url)
      const invalid = await topup({ cookie }, { credits: 1000 })
      expect(invalid.status).toBe(400)
      expect(await invalid.json()).toMatchObject({ error: 'invalid top-up' })
      const foreign = await topup({ cookie, origin: 'https://elsewhere.example' })
      expect(foreign.status).toBe(403)
    })

    it('/skill states what a top-up buys: 50 credits, 16 messages at 3 with 2 over', async () => {
      const skill = await (await fetch(`${venue.url}/skill`)).text()
      expect(skill).toContain('adds 50 credits (25 per USDC, never expiring)')
      expect(skill).toContain('16 messages with 2 credits over')
    })

    it('the 402: 2.00 USDC on x402, and MPP in pull mode only', async () => {
      const { cookie } = await signInToChat(venue.url)
      const challenge = await topup({ cookie })
      expect(challenge.status).toBe(402)
      expect(await challenge.json()).toMatchObject({
        x402Version: 1,
        accepts: [{ maxAmountRequired: '2000000', resource: '/api/chat/topup' }],
      })
      const required = decodeBase64Json(challenge.headers.get(PAYMENT_REQUIRED_HEADER)!) as {
        accepts: Array<{ amount: string }>
      }
      expect(required.accepts[0]!.amount).toBe('2000000')
      const mpp = /request="([^"]*)"/.exec(challenge.headers.get('www-authenticate')!)![1]!
      expect(JSON.parse(Buffer.from(mpp, 'base64url').toString('utf8'))).toMatchObject({
        amount: '2000000',
        methodDetails: { supportedModes: ['pull'] },
      })
    })

    it('x402: 50 credits for the signed-in wallet; the next message is answered from credits', async () => {
      const account = devnet.accounts.payer
      const { cookie, wallet } = await signInToChat(venue.url, { account })
      const before = await devnet.usdcBalance(devnet.accounts.payee)
      const response = await paid(devnet.x402Fetch(account), cookie)
      expect(response.status).toBe(200)
      const answer = (await response.json()) as { orderId: string }
      expect(answer).toMatchObject({
        ok: true,
        credited: 50,
        credits: 50,
        messages: 16,
        orderId: expect.stringMatching(/^chat_topup:x402:/),
      })
      expect(response.headers.get('payment-response')).not.toBeNull()
      expect(await devnet.usdcBalance(devnet.accounts.payee)).toBe(before + 2_000_000n)
      expect(await me(cookie)).toMatchObject({ credits: 50, freeLeft: 3 })
      // The order and its revenue, a tenth to the buyback reserve.
      expect(await sql('SELECT kind, status FROM orders WHERE id = $1', [answer.orderId])).toEqual([
        { kind: 'chat_topup', status: 'fulfilled' },
      ])
      expect(
        await sql(
          'SELECT amount_atomic::text AS a, reserve_atomic::text AS r FROM revenue WHERE order_id = $1',
          [answer.orderId],
        ),
      ).toEqual([{ a: '2000000', r: '200000' }])
      for (let free = 0; free < 3; free++)
        expect((await ask(cookie, 'How do I start a first message?')).json.paidWith).toBe(
          'free message',
        )
      const onCredits = await ask(cookie, 'And how do I end it?')
      expect(onCredits.status).toBe(200)
      expect(onCredits.json).toMatchObject({ paidWith: 'credits', credits: 47 })
      expect(await creditBalance(venue.deps.database.db, wallet)).toBe(47)
    })

    it('MPP pull: the wallet signs, the venue broadcasts; 50 credits', async () => {
      const account = devnet.accounts.payer2
      const { cookie } = await signInToChat(venue.url, { account })
      const before = await devnet.tempoBalance!(devnet.accounts.payee)
      const response = await paid(devnet.mppFetch!(account, 'pull'), cookie)
      expect(response.status).toBe(200)
      expect(await response.json()).toMatchObject({
        credited: 50,
        credits: 50,
        orderId: expect.stringMatching(/^chat_topup:mpp:/),
      })
      expect(response.headers.get('payment-receipt')).not.toBeNull()
      expect(await devnet.tempoBalance!(devnet.accounts.payee)).toBe(before + 2_000_000n)
      expect(await me(cookie)).toMatchObject({ credits: 50 })
    })
    // A paying wallet that is not the signed-in one (no settle call made): chat-topup-payer.faults.test.ts.
  },
)

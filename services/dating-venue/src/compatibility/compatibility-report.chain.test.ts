import type { Devnet } from '@agents/devnet'
import { sharedDevnet } from '@agents/devnet/testing'
import { decodeBase64Json, PAYMENT_REQUIRED_HEADER } from '@agents/payments'
import { baseRequirementOf, paymentSignatureHeader } from '@agents/payments/testing'
import { postJson } from '@agents/service-kit'
import { testBackends } from '@agents/service-kit/db'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { quotesHeart } from '../beat/intro.ts'
import { couples } from '../db/schema.ts'
import { creditBalance } from '../orders/credits.ts'
import { findOrder } from '../orders/order-state.ts'
import type { Venue } from '../start.ts'
import { uniqueHandle } from '../test-helpers.ts'
import { type ChatStandIn, startChatStandIn } from '../testing/chat-stand-in.ts'
import {
  startTestVenue,
  TEST_ADMIN_TOKEN,
  TEST_DATABASE_URL,
  VENUE_TEST_DATABASE,
} from '../testing.ts'
import { reportOrderId } from './compatibility-report.ts'

const PATH = '/api/premium/compatibility-report'

const myHeart = {
  about: 'I restore old sailboats and read too much history on rainy weekends.',
  seeking: 'Someone patient to take things slow with, who likes the sea.',
  relationship_intent: 'long-term',
  values: ['honesty', 'curiosity', 'kindness'],
  interests: ['sailing', 'history', 'baking'],
}
const theirHeart = {
  about: 'Night owl violinist who collects vintage maps of forgotten harbour towns.',
  seeking: 'A partner who wants to travel soon and laugh at bad puns.',
  relationship_intent: 'casual',
  values: ['kindness', 'honesty', 'adventure'],
  interests: ['sailing', 'violin'],
}
const theirText = `${theirHeart.about} ${theirHeart.seeking}`

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'the compatibility report on $name',
  ({ open }) => {
    let devnet: Devnet
    let venue: Venue
    let chat: ChatStandIn
    let drop: () => Promise<void>
    let me: { ownerId: number; credential: string }
    let them: { ownerId: number; credential: string }
    let coupleId: number
    let theirPersona: number

    /** Files a dating doc paid by `account`: its owner and credential. */
    const fileDoc = async (account: PrivateKeyAccount, heart: object) => {
      const response = await devnet.x402Fetch(account)(`${venue.url}/api/intake/heart-file`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ageAttested: true, contactRef: 'signal: private-1', heart }),
      })
      const body = (await response.json()) as { ownerId: number; ownerCredential: string }
      return { ownerId: body.ownerId, credential: body.ownerCredential }
    }
    const enter = async (owner: { ownerId: number; credential: string }, heart: object) => {
      const answer = await postJson(
        `${venue.url}/api/personas`,
        {
          handle: uniqueHandle('cr'),
          model: 'claude',
          persona_age: '18+',
          heart,
          ownerId: owner.ownerId,
        },
        { authorization: `Bearer ${owner.credential}` },
      )
      expect(answer.json.admitted, answer.text).toBe(true)
      return answer.json.personaId as number
    }
    const buy = (
      body: object,
      {
        credential = me.credential,
        account,
      }: { credential?: string; account?: PrivateKeyAccount } = {},
    ) => {
      const send = account ? devnet.x402Fetch(account) : fetch
      return send(`${venue.url}${PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${credential}` },
        body: JSON.stringify(body),
      }).then(async (response) => ({
        status: response.status,
        headers: response.headers,
        // biome-ignore lint/suspicious/noExplicitAny: tests read the answer by path
        json: (await response.json()) as any,
      }))
    }
    const payee = () => devnet.usdcBalance(devnet.accounts.payee)

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
      me = await fileDoc(devnet.accounts.payer, myHeart)
      them = await fileDoc(devnet.accounts.payer2, theirHeart)
      const [mine, theirs] = [await enter(me, myHeart), await enter(them, theirHeart)]
      theirPersona = theirs
      const [couple] = await venue.deps.database.db
        .insert(couples)
        .values({
          cycleId: 'report-test',
          personaA: Math.min(mine, theirs),
          personaB: Math.max(mine, theirs),
        })
        .returning({ id: couples.id })
      coupleId = couple!.id
    }, 120_000)
    afterAll(async () => {
      await venue?.close()
      await chat?.close()
      await devnet?.stop()
      await drop?.()
    })

    it('refuses before any 402: bad bodies 400, no credential 401, another owner 403, unknown ids 404', async () => {
      for (const body of [
        {},
        { ownerId: 0 },
        { ownerId: 'x' },
        { ownerId: me.ownerId, coupleId: 2 ** 31 },
        { ownerId: me.ownerId, extra: 1 },
      ]) {
        const answer = await buy(body)
        expect(answer.status, JSON.stringify(body)).toBe(400)
        expect(answer.json.error).toBe('invalid compatibility report')
        expect(answer.headers.get(PAYMENT_REQUIRED_HEADER)).toBeNull()
      }
      const none = await postJson(`${venue.url}${PATH}`, { ownerId: me.ownerId })
      expect(none.status).toBe(401)
      expect((await buy({ ownerId: me.ownerId }, { credential: them.credential })).status).toBe(403)
      expect((await buy({ ownerId: 2_000_000 })).json).toEqual({ error: 'no such owner' })
      expect((await buy({ ownerId: me.ownerId, coupleId: 2_000_000 })).json).toEqual({
        error: 'no such couple',
      })
    })

    it('a couple the owner is not in is 403, before any 402', async () => {
      const outsider = await enter(them, {
        about: 'Another persona of the other owner, quiet and kind.',
      })
      const [strangers] = await venue.deps.database.db
        .insert(couples)
        .values({
          cycleId: 'report-test-2',
          personaA: Math.min(theirPersona, outsider),
          personaB: Math.max(theirPersona, outsider),
        })
        .returning({ id: couples.id })
      const answer = await buy({ ownerId: me.ownerId, coupleId: strangers!.id })
      expect(answer.status).toBe(403)
      expect(answer.json.error).toBe('owner not in this couple')
      expect(answer.headers.get(PAYMENT_REQUIRED_HEADER)).toBeNull()
    })

    it('without proof: the 402 with the legacy body on every rail, and the order challenged', async () => {
      const answer = await buy({ ownerId: me.ownerId })
      expect(answer.status).toBe(402)
      expect(answer.json).toMatchObject({ x402Version: 1, error: 'payment required' })
      expect(answer.json.accepts[0]).toMatchObject({
        scheme: 'exact',
        network: 'eip155:8453',
        maxAmountRequired: '5000000',
        resource: PATH,
        mimeType: 'application/json',
        outputSchema: expect.objectContaining({ orderId: 'string' }),
      })
      expect(answer.json.accepts[0].payTo).toMatch(/^0x/)
      expect(answer.json.accepts[0].asset).toMatch(/^0x/)
      const required = decodeBase64Json(answer.headers.get(PAYMENT_REQUIRED_HEADER)!) as {
        accepts: Array<{ amount: string }>
      }
      expect(required.accepts[0]!.amount).toBe('5000000')
      expect(answer.headers.get('www-authenticate')).toMatch(/^Payment /)
      expect(
        await findOrder(venue.deps.database, { orderId: reportOrderId(me.ownerId, undefined) }),
      ).toMatchObject({
        status: 'challenged',
        kind: 'compatibility_report',
      })
    })

    it('a payment that fails verification: 402 payment not verified, the order failed with the reason', async () => {
      const challenge = await buy({ ownerId: me.ownerId })
      const base = baseRequirementOf(challenge)
      // Signed for less than the price: refused before anything is claimed or settled.
      const header = await paymentSignatureHeader(devnet.accounts.payer, { ...base, amount: '1' })
      const before = await payee()
      const refused = await fetch(`${venue.url}${PATH}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${me.credential}`,
          'payment-signature': header,
        },
        body: JSON.stringify({ ownerId: me.ownerId }),
      })
      expect(refused.status).toBe(402)
      const body = await refused.json()
      expect(body).toMatchObject({ error: 'payment not verified', reason: expect.any(String) })
      expect(await payee()).toBe(before)
      expect(
        await findOrder(venue.deps.database, { orderId: reportOrderId(me.ownerId, undefined) }),
      ).toMatchObject({
        status: 'failed',
        failureReason: expect.stringContaining(body.reason),
      })
    })

    it('paid: the model’s report from the owner’s doc and derived signals only; asked again the same day, the same report, free', async () => {
      chat.answer({
        status: 200,
        content: 'Overview: you two share honesty and kindness; talk about intent early.',
      })
      const before = await payee()
      const asked = chat.asked.length
      const paid = await buy({ ownerId: me.ownerId, coupleId }, { account: devnet.accounts.payer })
      expect(paid.status, JSON.stringify(paid.json)).toBe(200)
      expect(paid.json).toEqual({
        ok: true,
        orderId: reportOrderId(me.ownerId, coupleId),
        receiptId: expect.any(String),
        report: 'Overview: you two share honesty and kindness; talk about intent early.',
      })
      expect(await payee()).toBe(before + 5_000_000n)
      // The model saw the owner's doc and signals, never the other heart's words.
      const prompt = JSON.stringify(chat.asked.slice(asked))
      expect(prompt).toContain('sailboats')
      expect(prompt).not.toContain('violinist')
      expect(prompt).not.toContain('harbour')
      expect(prompt).toMatch(/sharedValues.{0,8}\[.{0,4}honesty.{0,6},.{0,4}kindness/)

      const again = await buy({ ownerId: me.ownerId, coupleId })
      expect(again.status).toBe(200)
      expect(again.json).toEqual(paid.json)
      // A new payment for a paid order is refused before it moves money: the same report.
      const twice = await buy({ ownerId: me.ownerId, coupleId }, { account: devnet.accounts.payer })
      expect(twice.status).toBe(200)
      expect(twice.json.report).toBe(paid.json.report)
      expect(await payee()).toBe(before + 5_000_000n)
      expect(await findOrder(venue.deps.database, { orderId: paid.json.orderId })).toMatchObject({
        status: 'fulfilled',
        paymentReference: paid.json.receiptId,
      })
    })

    it('two payments for one order at once: one is charged and served, the other refused before it moves money', async () => {
      chat.answer({ status: 200, content: 'Overview: a calm, careful match of pace and values.' })
      const owner = await fileDoc(devnet.accounts.payer, myHeart)
      const payers = [devnet.accounts.payer, devnet.accounts.payer2]
      const balances = async () =>
        Promise.all(payers.map((account) => devnet.usdcBalance(account.address)))
      const [before, payeeBefore] = [await balances(), await payee()]

      const answers = await Promise.all(
        payers.map((account) =>
          buy({ ownerId: owner.ownerId }, { credential: owner.credential, account }),
        ),
      )
      const served = answers.filter((answer) => answer.status === 200 && answer.json.report)
      expect(served.length, JSON.stringify(answers.map((answer) => answer.json))).toBeGreaterThan(0)
      const receipts = new Set(served.map((answer) => answer.json.receiptId))
      expect(receipts.size).toBe(1)
      // The other one waited on the first one's hold (409, retry), or came after it and got its report.
      for (const answer of answers) {
        if (answer.status === 409)
          expect(answer.json.orderId).toBe(reportOrderId(owner.ownerId, undefined))
        else expect(answer.json).toEqual(served[0]!.json)
      }
      expect(await payee()).toBe(payeeBefore + 5_000_000n)
      const spent = (await balances()).map((balance, index) => before[index]! - balance)
      expect(spent.sort()).toEqual([0n, 5_000_000n])
      expect(
        await findOrder(venue.deps.database, { orderId: reportOrderId(owner.ownerId, undefined) }),
      ).toMatchObject({
        status: 'fulfilled',
        paymentReference: [...receipts][0],
        settlingReference: null,
      })
    })

    it('a model that quotes the other heart or leaks contact details is replaced by the venue’s own report', async () => {
      // A second courtship of the owner's, so this is a new order today.
      const second = await enter(me, {
        ...myHeart,
        about: 'Second persona: I sail, bake and read.',
      })
      const [couple] = await venue.deps.database.db
        .insert(couples)
        .values({
          cycleId: 'report-test-3',
          personaA: Math.min(second, theirPersona),
          personaB: Math.max(second, theirPersona),
        })
        .returning({ id: couples.id })
      const cases = [
        {
          body: { ownerId: me.ownerId, coupleId: couple!.id },
          owner: me,
          account: devnet.accounts.payer,
          content: `They told us: ${theirHeart.about} So go for it.`,
        },
        {
          body: { ownerId: them.ownerId },
          owner: them,
          account: devnet.accounts.payer2,
          content: 'Write to them at night.owl@example.com, they will love it.',
        },
      ]
      for (const { body, owner, account, content } of cases) {
        chat.answer({ status: 200, content })
        const paid = await buy(body, { account, credential: owner.credential })
        expect(paid.status, JSON.stringify(paid.json)).toBe(200)
        expect(paid.json.report).toContain('Your own doc')
        expect(paid.json.report).not.toContain('@example.com')
        expect(quotesHeart(paid.json.report, [theirText])).toBe(false)
      }
    })

    it('the model down after payment settled: re-attempted, then credited with the order id, once', async () => {
      chat.answer({ status: 500, content: 'down' })
      const before = await payee()
      const credits = await creditBalance(venue.deps.database.db, devnet.accounts.payer2.address)
      const asked = chat.asked.length
      const answer = await buy(
        { ownerId: them.ownerId, coupleId },
        { account: devnet.accounts.payer2, credential: them.credential },
      )
      expect(answer.status).toBe(502)
      expect(answer.json).toEqual({
        error: 'the report could not be delivered: its price was credited',
        orderId: reportOrderId(them.ownerId, coupleId),
        receiptId: expect.any(String),
        credited: 125,
      })
      expect(chat.asked.length - asked).toBe(2)
      expect(await payee()).toBe(before + 5_000_000n)
      expect(await creditBalance(venue.deps.database.db, devnet.accounts.payer2.address)).toBe(
        credits + 125,
      )
      const { rows } = await venue.deps.database.client.query(
        "SELECT detail FROM events WHERE kind = 'order_credited'",
      )
      expect(rows.map((row) => (row as { detail: { orderId: string } }).detail.orderId)).toContain(
        answer.json.orderId,
      )
      // Asked again: the same answer; nothing charged or credited twice.
      const again = await buy({ ownerId: them.ownerId, coupleId }, { credential: them.credential })
      expect(again.json).toEqual(answer.json)
      expect(await creditBalance(venue.deps.database.db, devnet.accounts.payer2.address)).toBe(
        credits + 125,
      )
    })

    it('the operator looks an order up by id or paying transaction, credits an undelivered one once, and reads the totals', async () => {
      const operator = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }
      const get = (query: string, headers: Record<string, string> = operator) =>
        fetch(`${venue.url}/admin/orders${query}`, { headers }).then(async (response) => ({
          status: response.status,
          // biome-ignore lint/suspicious/noExplicitAny: tests read the answer by path
          json: (await response.json()) as any,
        }))
      const orderId = reportOrderId(them.ownerId, coupleId)
      const byId = await get(`?orderId=${encodeURIComponent(orderId)}`)
      expect(byId.status).toBe(200)
      expect(byId.json).toMatchObject({
        orderId,
        kind: 'compatibility_report',
        status: 'fulfilled',
        amountUsdc: '5.00',
        revenue: { amountUsdc: '5.00', reserveUsdc: '0.50' },
        credited: [{ credits: 125, reason: 'undelivered' }],
      })
      const byTransaction = await get(`?transaction=${byId.json.transaction}`)
      expect(byTransaction.json).toEqual(byId.json)
      expect((await get('?orderId=cr:1:0:1970-01-01')).status).toBe(404)
      expect((await get('')).status).toBe(400)
      expect((await get(`?orderId=${orderId}&transaction=0x1`)).status).toBe(400)
      expect((await get(`?orderId=${orderId}`, {})).status).toBe(401)
      expect(
        (await get(`?orderId=${orderId}`, { authorization: 'Bearer wrong-token-0123456789abcdef' }))
          .status,
      ).toBe(403)
      // The refund rule by hand (POST /admin/actions/credit): the operator credits the paying
      // wallet of a delivered order once; the order the venue itself credited is not credited again.
      const credit = (body: unknown, headers: Record<string, string> = operator) =>
        postJson(`${venue.url}/admin/actions/credit`, body, headers)
      const delivered = reportOrderId(me.ownerId, coupleId)
      const payerCredits = () =>
        creditBalance(venue.deps.database.db, devnet.accounts.payer.address)
      const beforeCredit = await payerCredits()
      expect((await credit({ orderId: delivered }, {})).status).toBe(401)
      expect((await credit({ orderId: '' })).status).toBe(400)
      expect((await credit({ orderId: 'cr:1:0:1970-01-01' })).status).toBe(404)
      expect((await credit({ orderId })).json).toEqual({
        error: 'this order was already credited',
      })
      expect(await payerCredits()).toBe(beforeCredit)
      expect((await credit({ orderId: delivered })).json).toEqual({
        ok: true,
        orderId: delivered,
        wallet: devnet.accounts.payer.address.toLowerCase(),
        credits: 125,
      })
      expect(await payerCredits()).toBe(beforeCredit + 125)
      expect((await credit({ orderId: delivered })).status).toBe(409)
      expect(await payerCredits()).toBe(beforeCredit + 125)
      expect((await get(`?orderId=${encodeURIComponent(delivered)}`)).json.credited).toEqual([
        expect.objectContaining({ credits: 125, reason: 'undelivered' }),
      ])
      const totals = await fetch(`${venue.url}/admin/orders/totals`, { headers: operator }).then(
        (r) => r.json(),
      )
      expect(totals.orders_by_status.fulfilled).toBeGreaterThanOrEqual(3)
      // doc_submit (2) + reports: each a tenth to the reserve, exactly.
      const revenue = Number(totals.revenue_usdc)
      expect(Number(totals.buyback_reserve_usdc)).toBeCloseTo(revenue / 10, 6)
    })
  },
)

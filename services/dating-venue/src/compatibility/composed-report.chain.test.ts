import type { Devnet } from '@agents/devnet'
import { sharedDevnet } from '@agents/devnet/testing'
import { decodeBase64Json, PAYMENT_RESPONSE_HEADER, type RequirementV2 } from '@agents/payments'
import { baseRequirementOf, paymentSignatureHeader } from '@agents/payments/testing'
import { testBackends } from '@agents/service-kit/db'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { revenue } from '../db/schema.ts'
import { findOrder } from '../orders/order-state.ts'
import type { Venue } from '../start.ts'
import { countRows, ownerWithDoc } from '../testing/intake-fixtures.ts'
import { startTestVenue, TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'
import { reportOrderId } from './compatibility-report.ts'

// The paid report as a venue without a chat model sells it: composed and
// checked while the payment settles, then recorded with the settlement in
// one statement (`deliverAtOnce`), its payment verified while the
// credential and the owner's doc are read (`verifyAhead`).

const PATH = '/api/premium/compatibility-report'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'the composed report on $name',
  ({ open }) => {
    let devnet: Devnet
    let venue: Venue
    let drop: () => Promise<void>
    let requirement: RequirementV2

    const newOwner = () => ownerWithDoc(venue)
    const buy = async (ownerId: number, credential: string, payment?: string) => {
      const response = await fetch(`${venue.url}${PATH}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${credential}`,
          ...(payment ? { 'payment-signature': payment } : {}),
        },
        body: JSON.stringify({ ownerId }),
      })
      return {
        status: response.status,
        headers: response.headers,
        // biome-ignore lint/suspicious/noExplicitAny: tests read the answer by path
        json: (await response.json()) as any,
      }
    }
    const pay = () => paymentSignatureHeader(devnet.accounts.payer, requirement)
    const payee = () => devnet.usdcBalance(devnet.accounts.payee)
    const ledgerRows = () => countRows(venue, 'payment_ledger')
    const revenueOf = (orderId: string) =>
      venue.deps.database.db.select().from(revenue).where(eq(revenue.orderId, orderId))

    beforeAll(async () => {
      const database = await open()
      drop = database.drop
      devnet = await sharedDevnet({ tempo: false })
      venue = await startTestVenue({ devnet, databaseUrl: database.url })
      const owner = await newOwner()
      const challenge = await buy(owner.ownerId, owner.credential)
      expect(challenge.status).toBe(402)
      requirement = baseRequirementOf(challenge)
    }, 120_000)
    afterAll(async () => {
      await venue?.close()
      await devnet?.stop()
      await drop?.()
    })

    it('paid: the venue’s own report, recorded with its settlement at once (order fulfilled with its transaction, revenue and reserve, the ledger row delivered); asked again, the same report free', async () => {
      const owner = await newOwner()
      const before = await payee()
      const paid = await buy(owner.ownerId, owner.credential, await pay())
      expect(paid.status, JSON.stringify(paid.json)).toBe(200)
      const orderId = reportOrderId(owner.ownerId, undefined)
      expect(paid.json).toEqual({
        ok: true,
        orderId,
        receiptId: expect.any(String),
        report: expect.stringContaining('You stated no hard filters'),
      })
      expect(await payee()).toBe(before + 5_000_000n)
      const { transaction } = decodeBase64Json(paid.headers.get(PAYMENT_RESPONSE_HEADER)!) as {
        transaction: string
      }
      expect(await findOrder(venue.deps.database, { orderId })).toMatchObject({
        status: 'fulfilled',
        paymentReference: paid.json.receiptId,
        settlingReference: null,
        transaction: transaction.toLowerCase(),
      })
      expect(await revenueOf(orderId)).toEqual([
        expect.objectContaining({ amountAtomic: 5_000_000n, reserveAtomic: 500_000n }),
      ])
      const row = await venue.deps.payments.ledger.get(paid.json.receiptId)
      expect(row).toMatchObject({
        state: 'settled',
        order: null,
        fulfilment: { orderId, report: paid.json.report, source: 'venue' },
        receipt: expect.objectContaining({ transaction }),
      })
      expect(row?.fulfilledAt).toBeInstanceOf(Date)

      const again = await buy(owner.ownerId, owner.credential)
      expect(again).toMatchObject({ status: 200, json: paid.json })
      expect(await payee()).toBe(before + 5_000_000n)
    })

    it('a payment verified ahead for a caller refused after it (another owner’s credential): 403, nothing moved or written, and the payment stays good', async () => {
      const [owner, other] = [await newOwner(), await newOwner()]
      const before = await payee()
      const rows = await ledgerRows()
      const payment = await pay()
      const refused = await buy(owner.ownerId, other.credential, payment)
      expect(refused.status).toBe(403)
      expect(await payee()).toBe(before)
      expect(await ledgerRows()).toBe(rows)
      expect(
        await findOrder(venue.deps.database, { orderId: reportOrderId(owner.ownerId, undefined) }),
      ).toBeUndefined()
      // The facilitator only answered a question: the owner's own request pays with it.
      const paid = await buy(owner.ownerId, owner.credential, payment)
      expect(paid.status, JSON.stringify(paid.json)).toBe(200)
      expect(await payee()).toBe(before + 5_000_000n)
    })

    it('a payment the facilitator refuses after its claim committed (a forged signature): 402 with the reason, the claim withdrawn and the order’s hold released, so the next payment pays', async () => {
      const owner = await newOwner()
      const orderId = reportOrderId(owner.ownerId, undefined)
      const before = await payee()
      const rows = await ledgerRows()
      const forged = await paymentSignatureHeader(devnet.accounts.payer, requirement, {
        signer: devnet.accounts.payer2,
      })
      const refused = await buy(owner.ownerId, owner.credential, forged)
      expect(refused.status).toBe(402)
      expect(refused.json).toMatchObject({
        error: 'payment not verified',
        reason: expect.any(String),
      })
      expect(await payee()).toBe(before)
      expect(await ledgerRows()).toBe(rows)
      expect(await findOrder(venue.deps.database, { orderId })).toMatchObject({
        status: 'failed',
        settlingReference: null,
        failureReason: expect.stringContaining(refused.json.reason),
      })
      const paid = await buy(owner.ownerId, owner.credential, await pay())
      expect(paid.status, JSON.stringify(paid.json)).toBe(200)
      expect(await payee()).toBe(before + 5_000_000n)
      expect(await findOrder(venue.deps.database, { orderId })).toMatchObject({
        status: 'fulfilled',
      })
    })

    it('the statement recording the delivery fails after the money moved: 503 with the reference and the settlement kept; the retry with the same payment gets the report, charged once', async () => {
      const owner = await newOwner()
      const orderId = reportOrderId(owner.ownerId, undefined)
      const { db } = venue.deps.database
      await db.execute(sql`create or replace function refuse_revenue() returns trigger language plpgsql
      as $$ begin raise exception 'revenue refused (test)'; end $$`)
      await db.execute(sql`create trigger refuse_revenue before insert on revenue
      for each row execute function refuse_revenue()`)
      const before = await payee()
      const payment = await pay()
      let lost: Awaited<ReturnType<typeof buy>>
      try {
        lost = await buy(owner.ownerId, owner.credential, payment)
      } finally {
        await db.execute(sql`drop trigger refuse_revenue on revenue`)
      }
      expect(lost.status).toBe(503)
      expect(lost.headers.get('retry-after')).toBeTruthy()
      expect(await payee()).toBe(before + 5_000_000n)
      const row = await venue.deps.payments.ledger.get(lost.json.reference)
      expect(row).toMatchObject({ state: 'settled', fulfilment: null, fulfilledAt: null })
      expect(row?.receipt).toMatchObject({ transaction: expect.stringMatching(/^0x/) })
      // Nothing of the delivery was written: not the order's fulfilment, not its revenue.
      expect(await findOrder(venue.deps.database, { orderId })).toMatchObject({
        status: 'challenged',
      })
      expect(await revenueOf(orderId)).toEqual([])

      const retried = await buy(owner.ownerId, owner.credential, payment)
      expect(retried.status, JSON.stringify(retried.json)).toBe(200)
      expect(retried.json).toMatchObject({ ok: true, orderId, receiptId: lost.json.reference })
      expect(retried.json.report).toEqual(expect.stringContaining('You stated no hard filters'))
      expect(await payee()).toBe(before + 5_000_000n)
      expect(await findOrder(venue.deps.database, { orderId })).toMatchObject({
        status: 'fulfilled',
      })
      expect(await revenueOf(orderId)).toHaveLength(1)
    })
  },
)

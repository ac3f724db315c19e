import { randomBytes } from 'node:crypto'
import { testBackends } from '@agents/service-kit/db'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openVenueDatabase, type VenueDatabase } from '../db/open.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'
import { creditBalance, creditsFor, creditUndelivered } from './credits.ts'
import { lookUpOrder } from './order-lookup.ts'
import { challengeOrder, failOrder, findOrder, ordersByStatus } from './order-state.ts'
import { recordPaidOrder } from './record-paid-order.ts'
import { reserveOf, revenueTotals } from './revenue.ts'
import { formatUsdc } from './usdc.ts'

describe('USDC amounts', () => {
  it.each([
    [0n, '0.00'],
    [1n, '0.000001'],
    [100_000n, '0.10'],
    [1_000_000n, '1.00'],
    [5_000_000n, '5.00'],
    [50_000_000n, '50.00'],
    [1_234_567n, '1.234567'],
    [1_230_000n, '1.23'],
    [1_200_000n, '1.20'],
    [-2_500_000n, '-2.50'],
    [123_456_789_000_000n, '123456789.00'],
  ])('%s atomic is %s', (atomic, text) => expect(formatUsdc(atomic)).toBe(text))

  it('a tenth of every price accrues exactly; other amounts round down per payment', () => {
    for (const price of [1_000_000n, 100_000n, 2_000_000n, 5_000_000n, 50_000_000n])
      expect(reserveOf(price) * 10n).toBe(price)
    expect(reserveOf(19n)).toBe(1n)
  })

  it('credits: 25 per USDC, rounded up for the owner', () => {
    expect(creditsFor(1_000_000n)).toBe(25)
    expect(creditsFor(5_000_000n)).toBe(125)
    expect(creditsFor(100_000n)).toBe(3)
    expect(creditsFor(40_000n)).toBe(1)
    expect(creditsFor(40_001n)).toBe(2)
  })
})

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'orders, revenue and credits on $name',
  ({ open }) => {
    let database: VenueDatabase
    let drop: () => Promise<void>
    beforeAll(async () => {
      const opened = await open()
      drop = opened.drop
      database = await openVenueDatabase({ url: opened.url, dataDir: 'memory://' })
    })
    afterAll(async () => {
      await database?.close()
      await drop?.()
    })

    const order = (id: string) => ({
      id,
      kind: 'compatibility_report',
      ownerId: null,
      amountAtomic: 5_000_000n,
    })
    /** A settled payment's receipt, as delivery records it. */
    const receipt = (reference: string, transaction: string, amount = 5_000_000n) => ({
      rail: 'x402' as const,
      network: 'eip155:8453',
      payer: '0x0000000000000000000000000000000000000001',
      amount: amount.toString(),
      transaction,
      reference,
    })
    const paid = (id: string, reference: string, transaction: string) =>
      recordPaidOrder(
        database.db,
        { id, kind: 'compatibility_report', ownerId: null },
        receipt(reference, transaction),
      )

    it('challenged -> fulfilled once; a fulfilled order is never challenged, failed or fulfilled again', async () => {
      expect(await challengeOrder(database.db, order('cr:1:0:2026-11-24'))).toBe('challenged')
      await paid('cr:1:0:2026-11-24', 'ref-1', '0xABC')
      expect(await challengeOrder(database.db, order('cr:1:0:2026-11-24'))).toBe('fulfilled')
      await failOrder(database.db, order('cr:1:0:2026-11-24'), 'bad signature')
      await paid('cr:1:0:2026-11-24', 'ref-2', '0xdef')
      expect(await findOrder(database, { transaction: '0xabc' })).toMatchObject({
        id: 'cr:1:0:2026-11-24',
        status: 'fulfilled',
        paymentReference: 'ref-1',
        failureReason: null,
      })
      expect(await findOrder(database, { orderId: 'cr:1:0:2026-11-24' })).toMatchObject({
        transaction: '0xabc',
      })
      expect(await findOrder(database, { orderId: 'cr:9:0:2026-11-24' })).toBeUndefined()
    })

    it('a failed order keeps its reason and may be challenged again', async () => {
      await challengeOrder(database.db, order('cr:2:0:2026-11-24'))
      await failOrder(database.db, order('cr:2:0:2026-11-24'), 'payment not verified: expired')
      expect(await findOrder(database, { orderId: 'cr:2:0:2026-11-24' })).toMatchObject({
        status: 'failed',
        failureReason: 'payment not verified: expired',
      })
      expect(await challengeOrder(database.db, order('cr:2:0:2026-11-24'))).toBe('challenged')
      expect(await ordersByStatus(database)).toEqual({ challenged: 1, fulfilled: 1, failed: 0 })
    })

    it('each order counts its revenue once; the reserve is exactly a tenth of the total', async () => {
      const kinds = [
        ['doc_submit', 1_000_000n],
        ['agent_ask', 100_000n],
        ['compatibility_report', 5_000_000n],
        ['featured_slot', 50_000_000n],
      ] as const
      for (const [index, [kind, amountAtomic]] of kinds.entries())
        for (const attempt of ['first', 'again'])
          await recordPaidOrder(
            database.db,
            { id: `o-${index}`, kind, ownerId: null },
            receipt(`ref-o-${index}-${attempt}`, `0x0${index}`, amountAtomic),
          )
      // 56.10 USDC here and the 5.00 report paid in the first test, each once.
      expect(await revenueTotals(database)).toEqual({
        revenue_usdc: '61.10',
        buyback_reserve_usdc: '6.11',
      })
    })

    it('an undelivered order is credited once, to its wallet', async () => {
      const wallet = `0x${randomBytes(20).toString('hex')}`
      expect(await creditBalance(database.db, wallet)).toBe(0)
      const first = await creditUndelivered(database.db, {
        wallet,
        orderId: 'cr:x',
        amountAtomic: 5_000_000n,
      })
      const again = await creditUndelivered(database.db, {
        wallet,
        orderId: 'cr:x',
        amountAtomic: 5_000_000n,
      })
      expect(first).toEqual({ credited: true, credits: 125 })
      expect(again).toEqual({ credited: false, credits: 125 })
      expect(await creditBalance(database.db, wallet)).toBe(125)
    })

    it('the operator finds an order by id or transaction, with its revenue and credits', async () => {
      const id = 'cr:77:0:2026-11-24'
      await paid(id, 'ref-77', '0xFEED')
      await creditUndelivered(database.db, {
        wallet: '0xAbC',
        orderId: id,
        amountAtomic: 5_000_000n,
      })
      const byTransaction = await lookUpOrder(database, { transaction: '0xfeed' })
      expect(byTransaction).toMatchObject({
        orderId: id,
        status: 'fulfilled',
        amountUsdc: '5.00',
        receiptId: 'ref-77',
        transaction: '0xfeed',
        revenue: { rail: 'x402', amountUsdc: '5.00', reserveUsdc: '0.50' },
        credited: [{ wallet: '0xabc', credits: 125, reason: 'undelivered' }],
      })
      expect(await lookUpOrder(database, { orderId: id })).toEqual(byTransaction)
      expect(await lookUpOrder(database, { orderId: 'cr:0:0:1970-01-01' })).toBeUndefined()
    })
  },
)

import { randomBytes } from 'node:crypto'
import { rowsOf, testBackends } from '@agents/service-kit/db'
import { type SQL, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { openTestShopDatabase } from '../testing/test-shop.ts'
import type { LedgerTx } from './ledger.ts'
import { createPaymentLedger, type LedgerDatabase, type LedgerEntry } from './ledger.ts'

// The claim and the product's hold in one statement (`holdAtOnce`): the
// common case answers at once; every other case leaves nothing behind and
// is decided by the claim's transaction, exactly as without it.

const entryOf = (item: string, requestKey = `item:${item}`): LedgerEntry => ({
  reference: `0x${randomBytes(32).toString('hex')}`,
  kind: 'held_item',
  requestKey,
  rail: 'x402',
  network: 'eip155:8453',
  amount: 1_000n,
  payTo: `0x${'a'.repeat(40)}`,
  payer: `0x${'b'.repeat(40)}`,
  proof: { nonce: item },
  order: { item },
})

describe.each(testBackends(process.env.TEST_DATABASE_URL))('on $name', ({ open }) => {
  let db: LedgerDatabase
  let close: () => Promise<void>
  let drop: () => Promise<void>
  beforeAll(async () => {
    const database = await open()
    drop = database.drop
    ;({ db, close } = await openTestShopDatabase(database.url))
    await db.execute(
      sql`CREATE TABLE IF NOT EXISTS test_holds (item text PRIMARY KEY, holder text, sold boolean NOT NULL DEFAULT false)`,
    )
  })
  afterAll(async () => {
    await close?.()
    await drop?.()
  })

  // An item is held by one payment at a time, and never once sold.
  const holdable = sql`NOT test_holds.sold AND (test_holds.holder IS NULL OR test_holds.holder = excluded.holder)`
  const holdAtOnce = (item: string, reference: string) => (claimed: SQL) =>
    sql`INSERT INTO test_holds (item, holder) SELECT ${item}, ${reference} FROM ${claimed}
      ON CONFLICT (item) DO UPDATE SET holder = excluded.holder WHERE ${holdable} RETURNING 1`
  const transactionHolds: string[] = []
  const hold = (item: string, reference: string) => async (tx: LedgerTx) => {
    transactionHolds.push(reference)
    const held = rowsOf(
      await tx.execute(
        sql`INSERT INTO test_holds (item, holder) VALUES (${item}, ${reference})
          ON CONFLICT (item) DO UPDATE SET holder = excluded.holder WHERE ${holdable} RETURNING 1`,
      ),
    )
    return held.length > 0 ? undefined : Response.json({ error: 'item taken' }, { status: 409 })
  }
  const claim = (entry: LedgerEntry) => {
    const { item } = entry.order as { item: string }
    return createPaymentLedger(db).claim(entry, {
      leaseSeconds: 5,
      state: 'settling',
      hold: hold(item, entry.reference),
      holdAtOnce: holdAtOnce(item, entry.reference),
    })
  }
  const holderOf = async (item: string) =>
    rowsOf<{ holder: string | null }>(
      await db.execute(sql`SELECT holder FROM test_holds WHERE item = ${item}`),
    )[0]?.holder

  test('behavior: a new payment for a free item is claimed and holds it in one statement, without the transaction', async () => {
    const entry = entryOf('free')
    transactionHolds.length = 0
    expect(await claim(entry)).toEqual({ kind: 'new', settleAttempts: 1, afresh: true })
    expect(transactionHolds).toEqual([])
    expect(await holderOf('free')).toBe(entry.reference)
    expect(await createPaymentLedger(db).get(entry.reference)).toMatchObject({
      state: 'settling',
      settleAttempts: 1,
    })
  })

  test('behavior: an item another payment holds is refused by the hold, and the claim leaves no row', async () => {
    const first = entryOf('taken')
    await claim(first)
    const second = entryOf('taken')
    transactionHolds.length = 0
    const refused = await claim(second)
    expect(refused.kind).toBe('refused')
    if (refused.kind === 'refused') expect(refused.response.status).toBe(409)
    expect(transactionHolds).toEqual([second.reference])
    expect(await createPaymentLedger(db).get(second.reference)).toBeUndefined()
    expect(await holderOf('taken')).toBe(first.reference)
  })

  test('behavior: a failed payment presented again claims afresh and holds; refused, it is failed as it was', async () => {
    const ledger = createPaymentLedger(db)
    const entry = entryOf('retried')
    await claim(entry)
    await ledger.fail(entry.reference, 'refused by settle', async (tx) => {
      await tx.execute(sql`UPDATE test_holds SET holder = NULL WHERE item = 'retried'`)
    })
    expect(await claim(entry)).toEqual({ kind: 'new', settleAttempts: 2, afresh: false })
    expect(await holderOf('retried')).toBe(entry.reference)

    // Failed again, and the item sold meanwhile: the claim is taken back as it was.
    await ledger.fail(entry.reference, 'refused by settle again', async (tx) => {
      await tx.execute(sql`UPDATE test_holds SET holder = NULL, sold = true WHERE item = 'retried'`)
    })
    expect((await claim(entry)).kind).toBe('refused')
    expect(await ledger.get(entry.reference)).toMatchObject({
      state: 'failed',
      settleAttempts: 2,
      detail: 'presented again: what it pays for is taken; refused before it settled',
      leaseUntil: null,
    })
  })

  test('behavior: a payment already in the ledger is handed back and holds nothing, even an item it was not for', async () => {
    const entry = entryOf('first use')
    await claim(entry)
    const retry = await claim(entry)
    expect(retry).toMatchObject({ kind: 'existing', row: { reference: entry.reference } })

    // The same payment presented for another item: that item stays free.
    const reused = { ...entryOf('another item'), reference: entry.reference }
    const answer = await claim(reused)
    expect(answer).toMatchObject({ kind: 'existing', row: { requestKey: 'item:first use' } })
    expect(await holderOf('another item')).toBeUndefined()
  })
})

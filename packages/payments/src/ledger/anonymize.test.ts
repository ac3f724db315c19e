import { randomBytes } from 'node:crypto'
import { rowsOf, testBackends } from '@agents/service-kit/db'
import { sql } from 'drizzle-orm'
import { getAddress } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openTestShopDatabase } from '../testing/test-shop.ts'
import { anonymizedReference, anonymizePayments } from './anonymize.ts'
import { createPaymentLedger, type LedgerDatabase, type LedgerEntry } from './ledger.ts'

// Erasure in the ledger: the rows of a payer lose every trace of it (the reference becomes a
// keyed hash), and the same payment presented again is still one-use, on both databases.

const KEY = randomBytes(32)
const USDC = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913'
const newWallet = () => privateKeyToAccount(generatePrivateKey()).address
const nonce = () => `0x${randomBytes(32).toString('hex')}`
/** An x402 EVM reference as the package builds it (`check-payment.ts`): lower case. */
const x402Reference = (payer: string) =>
  `x402:eip155:8453:${USDC}:${payer.toLowerCase()}:${nonce()}`
const mppReference = () => `mpp:4217:${nonce()}`

const entry = (
  reference: string,
  payer: string,
  requestKey = `test:${reference}`,
): LedgerEntry => ({
  reference,
  kind: 'test_item',
  requestKey,
  rail: reference.startsWith('mpp:') ? 'mpp' : 'x402',
  network: 'eip155:8453',
  amount: 1_000_000n,
  payTo: '0x00000000000000000000000000000000000fee00',
  payer,
  proof: { from: payer, nonce: reference.split(':').at(-1) },
  order: { payer },
})

describe.each(testBackends(process.env.TEST_DATABASE_URL))(
  'anonymizing payments on $name',
  ({ open }) => {
    let db: LedgerDatabase
    let close: () => Promise<void>
    let drop: () => Promise<void>
    beforeAll(async () => {
      const database = await open()
      drop = database.drop
      ;({ db, close } = await openTestShopDatabase(database.url))
    })
    afterAll(async () => {
      await close?.()
      await drop?.()
    })

    const ledger = () => createPaymentLedger(db, { anonymizationKey: KEY })
    /** A settled, delivered payment of `payer`, as a sale leaves it. */
    const paid = async (reference: string, payer: string, requestKey?: string) => {
      const payments = ledger()
      expect(
        (await payments.claim(entry(reference, payer, requestKey), { leaseSeconds: 60 })).kind,
      ).toBe('new')
      const receipt = {
        rail: 'x402' as const,
        network: 'eip155:8453',
        payer: getAddress(payer),
        amount: '1000000',
        transaction: `0x${'cd'.repeat(32)}`,
        reference,
      }
      await payments.deliver(reference, async () => ({ delivered: reference }), {
        settled: receipt,
      })
    }
    /** Where the wallet's 40 hex digits still appear, in any letter case: `reference` and the like. */
    const columnsNaming = async (wallet: string) => {
      const hex = wallet.toLowerCase().slice(2)
      const columns = rowsOf<{ column_name: string }>(
        await db.execute(sql`SELECT column_name FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name = 'payment_ledger'`),
      )
      const found: string[] = []
      for (const { column_name: column } of columns) {
        const [hit] = rowsOf<{ n: number }>(
          await db.execute(
            sql`SELECT count(*)::int AS n FROM payment_ledger
              WHERE strpos(lower(${sql.identifier(column)}::text), ${hex}) > 0`,
          ),
        )
        if (hit!.n > 0) found.push(column)
      }
      return found
    }
    const count = async () =>
      rowsOf<{ n: number }>(
        await db.execute(sql`SELECT count(*)::int AS n FROM payment_ledger`),
      )[0]!.n

    it('takes the payer out of every row it matches: by reference, payer, reference alone, request key', async () => {
      const payer = newWallet()
      const byReference = mppReference()
      const byPayer = x402Reference(payer)
      const byKey = mppReference()
      const byPrefix = mppReference()
      await paid(byReference, newWallet())
      await paid(byPayer, payer)
      await paid(byKey, newWallet(), 'report:order-1')
      await paid(byPrefix, newWallet(), `ask:${payer.toLowerCase()}:abc`)
      // After the retention sweep only the reference still names the payer.
      const swept = x402Reference(payer)
      await paid(swept, payer)
      await db.execute(sql`UPDATE payment_ledger SET payer = '' WHERE reference = ${swept}`)
      const other = newWallet()
      const untouched = x402Reference(other)
      await paid(untouched, other)
      expect(await columnsNaming(payer)).toEqual(
        expect.arrayContaining(['reference', 'payer', 'proof', 'receipt', 'request_key']),
      )

      const done = await db.transaction((tx) =>
        anonymizePayments(tx, KEY, {
          references: [byReference],
          // Checksummed: matched in any letter case.
          payers: [getAddress(payer)],
          requestKeys: ['report:order-1'],
          requestKeyPrefixes: [`ask:${payer.toLowerCase()}:`],
        }),
      )
      expect(done.map((row) => row.reference).sort()).toEqual(
        [byReference, byPayer, byKey, byPrefix, swept].sort(),
      )
      for (const row of done) expect(row.anonymized).toBe(anonymizedReference(KEY, row.reference))
      expect(await columnsNaming(payer)).toEqual([])
      const [kept] = rowsOf<Record<string, unknown>>(
        await db.execute(
          sql`SELECT kind, state, rail, amount::text, pay_to, payer, proof, "order", receipt,
                   fulfilment, detail, request_key, settled_at IS NOT NULL AS settled
            FROM payment_ledger WHERE reference = ${anonymizedReference(KEY, byPayer)}`,
        ),
      )
      expect(kept).toEqual({
        kind: 'test_item',
        state: 'settled',
        rail: 'x402',
        amount: '1000000',
        pay_to: '0x00000000000000000000000000000000000fee00',
        payer: '',
        proof: {},
        order: null,
        receipt: null,
        fulfilment: null,
        detail: null,
        request_key: '',
        settled: true,
      })
      // Another payer's row is as it was; anonymizing again changes nothing.
      expect((await ledger().get(untouched))?.payer).toBe(getAddress(other))
      const before = await count()
      expect(await db.transaction((tx) => anonymizePayments(tx, KEY, { payers: [payer] }))).toEqual(
        [],
      )
      expect(await count()).toBe(before)
    })

    it('a payment presented again after its erasure is on record and used, with or without a hold', async () => {
      const payer = newWallet()
      const reference = x402Reference(payer)
      await paid(reference, payer, 'request-a')
      await db.transaction((tx) => ledger().anonymize(tx, { payers: [payer] }))
      const rows = await count()

      const again = await ledger().claim(entry(reference, payer, 'request-a'), { leaseSeconds: 60 })
      expect(again).toMatchObject({
        kind: 'existing',
        row: { reference: anonymizedReference(KEY, reference), requestKey: '', state: 'settled' },
      })
      let held = 0
      const withHold = await ledger().claim(entry(reference, payer, 'request-b'), {
        leaseSeconds: 60,
        state: 'settling',
        hold: async () => {
          held++
          return undefined
        },
      })
      expect(withHold.kind).toBe('existing')
      expect(held).toBe(0)
      expect((await ledger().get(reference))?.reference).toBe(anonymizedReference(KEY, reference))
      // Nothing written: no row under the reference as sold, no payer back in the ledger.
      expect(await count()).toBe(rows)
      expect(await columnsNaming(payer)).toEqual([])
      // A ledger without the key does not know it (which is why the key must never change).
      expect(await createPaymentLedger(db).get(reference)).toBeUndefined()
    })

    it('a claim racing the erasure of its payment is undone once the erasure commits (PostgreSQL waits on the row)', async () => {
      const payer = newWallet()
      const reference = x402Reference(payer)
      await paid(reference, payer)
      const rows = await count()
      let claiming: ReturnType<ReturnType<typeof ledger>['claim']> | undefined
      await db.transaction(async (tx) => {
        await ledger().anonymize(tx, { references: [reference] })
        // Started before the erasure commits: on PostgreSQL its insert waits on the renamed row.
        claiming = ledger().claim(entry(reference, payer), { leaseSeconds: 60 })
        await new Promise((resolve) => setTimeout(resolve, 200))
      })
      expect(await claiming).toMatchObject({
        kind: 'existing',
        row: { reference: anonymizedReference(KEY, reference) },
      })
      expect(await count()).toBe(rows)
      expect(await columnsNaming(payer)).toEqual([])
    })

    it('refuses to anonymize without a key long enough to be a secret', async () => {
      await expect(
        db.transaction((tx) => anonymizePayments(tx, randomBytes(8), { references: ['x'] })),
      ).rejects.toThrow(/at least 32/)
      await expect(
        db.transaction((tx) => createPaymentLedger(db).anonymize(tx, { references: ['x'] })),
      ).rejects.toThrow(/no anonymization key/)
      expect(() => createPaymentLedger(db, { anonymizationKey: randomBytes(16) })).toThrow(
        /at least 32/,
      )
    })
  },
)

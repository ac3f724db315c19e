import { type Devnet, serveLocal, startDevnet } from '@agents/devnet'
import { PGlite } from '@electric-sql/pglite'
import { Hono } from 'hono'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { paid } from './paid.ts'
import type { ReceiptStore } from './receipt-store.ts'
import { createSqlReceiptStore, receiptTableSql, type SqlQueryable } from './sql-receipt-store.ts'
import { devnetBaseRail } from './testing/devnet-rail.ts'
import { paymentSignatureHeader } from './testing/sign-authorization.ts'
import type { PaymentReceipt } from './types.ts'
import type { RequirementV2 } from './x402/requirements.ts'

// The machine's PostgreSQL; .ci/run makes sure it is running.
const databaseUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const table = `payment_receipts_${process.pid}_${Date.now()}`
const receipt = (reference: string): PaymentReceipt => ({
  rail: 'x402',
  version: 2,
  network: 'eip155:8453',
  payer: '0x1',
  amount: '1',
  transaction: '0x2',
  reference,
})

const backends: Array<[string, () => Promise<{ db: SqlQueryable; close: () => Promise<void> }>]> = [
  [
    'PGlite (embedded)',
    async () => {
      const db = new PGlite()
      return { db, close: () => db.close() }
    },
  ],
  [
    'PostgreSQL (TEST_DATABASE_URL)',
    async () => {
      const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 })
      return {
        db: pool,
        close: async () => {
          await pool.query(`DROP TABLE IF EXISTS ${table}`)
          await pool.end()
        },
      }
    },
  ],
]

describe.each(backends)('SQL receipt store on %s', (_name, open) => {
  let db: SqlQueryable
  let close: () => Promise<void>
  let store: ReceiptStore
  beforeAll(async () => {
    ;({ db, close } = await open())
    await db.query(receiptTableSql(table))
    store = createSqlReceiptStore(db, { table })
  })
  afterAll(() => close())

  test('behavior: a reference is claimed once; release gives a pending claim back, never a completed one', async () => {
    expect(await store.claim('ref-a')).toBe(true)
    expect(await store.claim('ref-a')).toBe(false)
    await store.release('ref-a')
    expect(await store.claim('ref-a')).toBe(true)
    await store.complete('ref-a', receipt('ref-a'))
    await store.release('ref-a')
    expect(await store.claim('ref-a')).toBe(false)
    const { rows } = await db.query(`SELECT receipt FROM ${table} WHERE reference = $1`, ['ref-a'])
    expect((rows[0] as { receipt: PaymentReceipt }).receipt).toEqual(receipt('ref-a'))
  })

  test('behavior: of 25 racing claims exactly one wins', async () => {
    const claims = await Promise.all(Array.from({ length: 25 }, () => store.claim('ref-race')))
    expect(claims.filter(Boolean)).toHaveLength(1)
  })
})

describe('one payment, five racing requests, on PostgreSQL', () => {
  let devnet: Devnet
  let pool: pg.Pool
  let url: string
  let closeServer: () => Promise<void>
  beforeAll(async () => {
    devnet = await startDevnet({ tempo: false })
    pool = new pg.Pool({ connectionString: databaseUrl, max: 10 })
    await pool.query(receiptTableSql(`${table}_http`))
    const deps = {
      x402: { rails: [devnetBaseRail(devnet)], facilitator: { url: devnet.facilitator.url } },
      store: createSqlReceiptStore(pool, { table: `${table}_http` }),
    }
    const app = new Hono()
    app.post('/paid', paid(deps, { price: { amount: 2_000n } }), (c) => c.json({ ok: true }))
    ;({ url, close: closeServer } = await serveLocal(app.fetch))
  }, 60_000)
  afterAll(async () => {
    await closeServer?.()
    await pool?.query(`DROP TABLE IF EXISTS ${table}_http`)
    await pool?.end()
    await devnet?.stop()
  })

  test('behavior: exactly one is served and the payee is paid once', async () => {
    const requirement: RequirementV2 = {
      scheme: 'exact',
      amount: '2000',
      maxTimeoutSeconds: 300,
      ...devnetBaseRail(devnet),
      extra: { name: 'USD Coin', version: '2' },
    }
    const header = await paymentSignatureHeader(devnet.accounts.payer, requirement)
    const before = await devnet.usdcBalance(devnet.accounts.payee)
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        fetch(`${url}/paid`, { method: 'POST', headers: { 'payment-signature': header } }),
      ),
    )
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 402, 402, 402, 402])
    for (const answer of answers.filter((candidate) => candidate.status === 402)) {
      expect(await answer.json()).toMatchObject({ reason: 'payment_already_used' })
    }
    expect((await devnet.usdcBalance(devnet.accounts.payee)) - before).toBe(2_000n)
  })
})

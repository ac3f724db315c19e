import { type Devnet, serveLocal } from '@agents/devnet'
import { sharedDevnet } from '@agents/devnet/testing'
import { rowsOf } from '@agents/service-kit/db'
import { sql } from 'drizzle-orm'
import { Hono } from 'hono'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createSettlementReader } from './chain/settlement-reader.ts'
import { decodeBase64Json } from './headers.ts'
import { createPaymentLedger, type LedgerDatabase } from './ledger/ledger.ts'
import type { PaymentsDeps } from './payments-deps.ts'
import { devnetBaseRail } from './testing/devnet-rail.ts'
import { sellTestItem, TEST_SHOP_BASE_URL } from './testing/sell-test-item.ts'
import { paymentSignatureHeader } from './testing/sign-authorization.ts'
import { countDeliveries, openTestShopDatabase } from './testing/test-shop.ts'
import { verifyAhead } from './verify-ahead.ts'
import type { RequirementV2 } from './x402/requirements.ts'

// `verifyAhead`: the facilitator verifies while the route runs its own
// checks; the sale takes that answer instead of asking again, and a route
// that refuses after it has moved and written nothing.

const PRICE = 2_000n
const PATH = '/ahead'

let devnet: Devnet
let url: string
let closeServer: () => Promise<void>
let closeProxy: () => Promise<void>
let db: LedgerDatabase
let closeDb: () => Promise<void>
let requirement: RequirementV2
/** `/verify` calls that reached the facilitator, and calls not answered yet. */
let verifies = 0
let inFlight = 0

beforeAll(async () => {
  devnet = await sharedDevnet({ tempo: false })
  ;({ db, close: closeDb } = await openTestShopDatabase())
  // The devnet's facilitator behind a proxy that counts what it is asked.
  const proxy = new Hono()
  proxy.all('*', async (c) => {
    if (c.req.path === '/verify') verifies++
    inFlight++
    try {
      return await fetch(new URL(c.req.path, devnet.facilitator.url), {
        method: c.req.method,
        headers: { 'content-type': 'application/json' },
        ...(c.req.method === 'GET' ? {} : { body: await c.req.text() }),
      })
    } finally {
      inFlight--
    }
  })
  const facilitator = await serveLocal(proxy.fetch)
  closeProxy = facilitator.close
  const deps: PaymentsDeps = {
    x402: { rails: [devnetBaseRail(devnet)], facilitator: { url: facilitator.url } },
    ledger: createPaymentLedger(db),
    chain: createSettlementReader({ baseRpcUrl: devnet.base.rpcUrl }),
    leaseSeconds: 5,
  }
  // The resource sellTestItem names: the path on the test shop's base URL.
  const terms = {
    price: { amount: PRICE },
    resource: { url: `${TEST_SHOP_BASE_URL}${PATH}`, description: 'ahead' },
  }
  const app = new Hono()
  app.post(
    PATH,
    async (c, next) => {
      // As the request arrives, before the route's own checks.
      const price = c.req.header('x-other-price')
      verifyAhead(deps, c.req.raw, price ? { ...terms, price: { amount: BigInt(price) } } : terms)
      await next()
    },
    (c) =>
      c.req.header('x-refuse')
        ? c.json({ error: 'not yours' }, 403)
        : sellTestItem(deps, c.req.raw, { price: terms.price, description: 'ahead' }),
  )
  ;({ url, close: closeServer } = await serveLocal(app.fetch))
  const challenge = await fetch(`${url}${PATH}`, { method: 'POST' })
  const required = decodeBase64Json(challenge.headers.get('payment-required')!) as {
    accepts: RequirementV2[]
  }
  requirement = required.accepts[0]!
}, 60_000)
afterAll(async () => {
  await closeServer?.()
  await closeProxy?.()
  await closeDb?.()
  await devnet?.stop()
})

const post = (payment: string, headers: Record<string, string> = {}) =>
  fetch(`${url}${PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'payment-signature': payment, ...headers },
    body: JSON.stringify({ item: payment.slice(-16) }),
  })
const payee = () => devnet.usdcBalance(devnet.accounts.payee)
const ledgerRows = async () =>
  rowsOf<{ n: number }>(await db.execute(sql`select count(*)::int as n from payment_ledger`))[0]!.n

test('behavior: a payment verified as the request arrived is not verified again: one /verify, settled and delivered once', async () => {
  const before = { verifies, paid: await payee(), delivered: await countDeliveries(db) }
  const response = await post(await paymentSignatureHeader(devnet.accounts.payer, requirement))
  expect(response.status, await response.clone().text()).toBe(200)
  expect(verifies - before.verifies).toBe(1)
  expect(await payee()).toBe(before.paid + PRICE)
  expect(await countDeliveries(db)).toBe(before.delivered + 1)
})

test('behavior: a route that refuses after verifying ahead has moved and written nothing; the same payment then pays', async () => {
  const payment = await paymentSignatureHeader(devnet.accounts.payer, requirement)
  const before = { verifies, paid: await payee(), rows: await ledgerRows() }
  const refused = await post(payment, { 'x-refuse': '1' })
  expect(refused.status).toBe(403)
  // The question was asked (it may still be on its way when the 403 is).
  await expect.poll(() => verifies - before.verifies).toBe(1)
  expect(await payee()).toBe(before.paid)
  expect(await ledgerRows()).toBe(before.rows)
  const paid = await post(payment)
  expect(paid.status).toBe(200)
  expect(await payee()).toBe(before.paid + PRICE)
})

test('behavior: terms the payment does not meet start nothing ahead; the sale verifies on its own', async () => {
  const before = { verifies, paid: await payee() }
  const response = await post(await paymentSignatureHeader(devnet.accounts.payer, requirement), {
    'x-other-price': String(PRICE * 2n),
  })
  expect(response.status).toBe(200)
  expect(verifies - before.verifies).toBe(1)
  expect(await payee()).toBe(before.paid + PRICE)
})

test('behavior: a payment read ahead at a lower price than the sale asks is read again and refused; nothing moves', async () => {
  const cheaper = { ...requirement, amount: String(PRICE / 2n) }
  const before = { paid: await payee(), rows: await ledgerRows() }
  const response = await post(await paymentSignatureHeader(devnet.accounts.payer, cheaper), {
    'x-other-price': String(PRICE / 2n),
  })
  expect(response.status).toBe(402)
  expect(await response.json()).toMatchObject({ error: 'payment not verified' })
  expect(await payee()).toBe(before.paid)
  expect(await ledgerRows()).toBe(before.rows)
  // The question asked ahead may still be on its way.
  await expect.poll(() => inFlight).toBe(0)
})

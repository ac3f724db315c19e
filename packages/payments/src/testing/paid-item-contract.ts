import type { Refusal } from '@agents/service-kit'
import { rowsOf } from '@agents/service-kit/db'
import { openApiResponseProblems } from '@agents/service-kit/openapi-response-problems'
import { sql } from 'drizzle-orm'
import { expect, test } from 'vitest'
import { PaymentReason } from '../errors.ts'
import { decodeBase64Json, PAYMENT_REQUIRED_HEADER } from '../headers.ts'
import type { LedgerDatabase, LedgerEntry, LedgerTx } from '../ledger/ledger.ts'
import type { AnyPaidItem, PaidItem, PaidItemDeps } from '../paid-item/define-paid-item.ts'
import { kindsWithoutItem, productsOf } from '../paid-item/products-of.ts'
import { sellItem } from '../paid-item/sell-item.ts'
import { reconcilePayments } from '../reconcile.ts'
import type { SaleAnswer } from '../sale-answer.ts'
import { saleAnswerResponse, saleResponse } from '../sale-response.ts'
import type { PaymentReceipt, Price } from '../types.ts'

/** One paid item of a service, as its contract test sees it. */
export type PaidItemContractTarget<deps extends PaidItemDeps, order, fulfilment> = {
  item: PaidItem<deps, order, fulfilment>
  /** The service's `PAID_ITEMS`: the reconciler's products come from them. */
  items: readonly AnyPaidItem<deps>[]
  /** The service's deps; its ledger's database is where the contract writes. */
  deps: deps
  /** A fresh order its hold takes and its delivery fulfils (fixtures made by the caller). */
  order: () => Promise<order>
  /** How the route answers a delivery (its `saleResponse` answer). */
  answer: (
    fulfilment: fulfilment,
    receipt: PaymentReceipt,
  ) => SaleAnswer | Refusal | Promise<SaleAnswer | Refusal>
  /** The price its documents state (atomic units), read from the documents. */
  documentedPrice: () => Promise<bigint>
  /** The route's own 402, when a bare request reaches it without a chain. */
  challenge?: () => Promise<Response>
  /** Who pays (the receipt's payer): a wallet the product may key an owner by. */
  payer?: string
  /** For an item priced per request: this request's price. */
  price?: Price
  /**
   * The service's `/openapi.json`: the item's real answers (its delivery's,
   * the 402s, the 503 of a pending payment, and the 502 of `undelivered`)
   * must each validate against the response it documents.
   */
  document?: () => Promise<OpenApiDocument>
  /** A fulfilment the service could not deliver (credited instead), when the item has one: its 502. */
  undelivered?: (order: order) => fulfilment
}

type OpenApiDocument = Parameters<typeof openApiResponseProblems>[0]

class Rollback extends Error {}

let references = 0
const referenceOf = (kind: string) =>
  `contract:${kind}:${process.pid}:${++references}:${Date.now()}`

/** Every table of the current schema and its row count: what a hook wrote, as data. */
export const tableCounts = async (db: LedgerDatabase | LedgerTx) => {
  const tables = rowsOf<{ name: string }>(
    await db.execute(sql`SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`),
  )
  const counts: Record<string, number> = {}
  for (const { name } of tables)
    counts[name] = rowsOf<{ n: number }>(
      await db.execute(sql`SELECT count(*)::int AS n FROM ${sql.identifier(name)}`),
    )[0]!.n
  return counts
}

/** The amounts a 402 asks: every x402 v2 accept (PAYMENT-REQUIRED) and every legacy v1 accept. */
export const amountsAsked = async (response: Response) => {
  const header = response.headers.get(PAYMENT_REQUIRED_HEADER)
  const v2 = header
    ? (decodeBase64Json(header) as { accepts: Array<{ amount: string }> }).accepts.map(
        (accept) => accept.amount,
      )
    : []
  const body = (await response.clone().json()) as {
    accepts?: Array<{ maxAmountRequired: string }>
  }
  return [...v2, ...(body.accepts ?? []).map((accept) => accept.maxAmountRequired)]
}

/**
 * The fast contract of a declared paid item, on the service's own database
 * and without a chain: what the exactly-once suite proves end to end on a
 * reference item (`exactlyOnceScenarios`), reduced to what each other item
 * must get right itself. Registers one test per clause, each through the
 * real ledger (`claim`, `withdraw`, `deliver`) and reconciler:
 * - its hold, taken in the claim's transaction, is given back by its
 *   release (another payment may then hold it), and a second payment's
 *   hold is refused while the first holds (an item without a hold: a claim
 *   writes nothing but its ledger row);
 * - its fulfilment inside a transaction that rolls back writes nothing;
 * - delivered twice (a retry), the second is read from the ledger and the
 *   route's answer is the same, with nothing written again;
 * - its kind is reconciled: `productsOf(items)` has it, and a settled,
 *   undelivered payment of it is delivered by the reconciler;
 * - its price is the documented one, and the one its 402 asks;
 * - with `document`, its real answers (delivered, both 402s, the 503 of a
 *   pending payment, the 502 of `undelivered`) are the ones it documents.
 *
 * @example
 * describe('featured_slot', () => paidItemContract(() => ({ item: featuredItem, items: PAID_ITEMS, deps, ... })))
 */
export const paidItemContract = <deps extends PaidItemDeps, order, fulfilment>(
  target: () => PaidItemContractTarget<deps, order, fulfilment>,
) => {
  const setup = () => {
    const {
      item,
      deps,
      price = item.price,
      payer = '0x00000000000000000000000000000000c0ffee00',
    } = target()
    if (!price) throw new Error(`${item.kind}: no price to sell at`)
    const ledger = deps.payments.ledger
    const product = item.product(deps)
    const entry = (reference: string, order: order): LedgerEntry => ({
      reference,
      kind: item.kind,
      requestKey: `contract:${reference}`,
      rail: 'x402',
      network: 'eip155:8453',
      amount: price.amount,
      payTo: '0x00000000000000000000000000000000000fee00',
      payer,
      proof: {},
      order,
    })
    const receiptOf = (reference: string): PaymentReceipt => ({
      rail: 'x402',
      version: 2,
      network: 'eip155:8453',
      payer,
      amount: price.amount.toString(),
      transaction: `0x${'ab'.repeat(32)}`,
      reference,
    })
    const hold = (reference: string, order: order) =>
      ledger.claim(entry(reference, order), {
        leaseSeconds: 60,
        state: 'settling',
        hold: product.hold && ((tx) => product.hold!(tx, order, reference)),
      })
    const release = (reference: string, order: order) => (tx: LedgerTx) =>
      product.release ? product.release(tx, order, reference) : Promise.resolve()
    return { item, deps, price, product, ledger, entry, receiptOf, hold, release }
  }

  test('contract: a hold is refused to a second payment, and its release lets another hold it (no hold: a claim writes only its ledger row)', async () => {
    const { hold, ledger, release, product } = setup()
    const order = await target().order()
    const [first, second, third] = [1, 2, 3].map(() => referenceOf(product.kind))
    if (!product.hold) {
      const before = await tableCounts(ledger.db)
      const claimed = await hold(first!, order)
      expect(claimed.kind).toBe('new')
      expect(await tableCounts(ledger.db)).toEqual({
        ...before,
        payment_ledger: before.payment_ledger! + 1,
      })
      if (claimed.kind === 'new') await ledger.withdraw(first!, claimed, 'contract: refused')
      expect(await tableCounts(ledger.db)).toEqual(before)
      return
    }
    const held = await hold(first!, order)
    expect(held.kind).toBe('new')
    expect((await hold(second!, order)).kind).toBe('refused')
    if (held.kind !== 'new') return
    await ledger.withdraw(first!, held, 'contract: refused', release(first!, order))
    expect(await ledger.get(first!)).toBeUndefined()
    const again = await hold(third!, order)
    expect(again.kind).toBe('new')
    if (again.kind === 'new')
      await ledger.withdraw(third!, again, 'contract: refused', release(third!, order))
  })

  test('contract: its fulfilment in a transaction that rolls back writes nothing', async () => {
    const { product, ledger, receiptOf } = setup()
    const order = await target().order()
    const before = await tableCounts(ledger.db)
    let inside: Record<string, number> | undefined
    await expect(
      ledger.db.transaction(async (tx) => {
        await product.fulfil(tx, order, receiptOf(referenceOf(product.kind)))
        inside = await tableCounts(tx)
        throw new Rollback()
      }),
    ).rejects.toBeInstanceOf(Rollback)
    // It did deliver something inside, and none of it stayed.
    expect(inside).not.toEqual(before)
    expect(await tableCounts(ledger.db)).toEqual(before)
  })

  test('contract: delivered again (a retry), the answer is the same and nothing is written twice', async () => {
    const { product, ledger, hold, receiptOf } = setup()
    const { answer } = target()
    const order = await target().order()
    const reference = referenceOf(product.kind)
    expect((await hold(reference, order)).kind).toBe('new')
    const receipt = receiptOf(reference)
    const first = await ledger.deliver(reference, (tx) => product.fulfil(tx, order, receipt), {
      settled: receipt,
    })
    const after = await tableCounts(ledger.db)
    const replay = await ledger.deliver<fulfilment>(reference, () => {
      throw new Error('delivered twice')
    })
    expect(await tableCounts(ledger.db)).toEqual(after)
    // The retry's fulfilment is the ledger's JSON copy: the answer must not tell them apart.
    expect(await answer(replay.fulfilment, receipt)).toEqual(
      await answer(first.fulfilment, receipt),
    )
  })

  test('contract: its kind is reconciled: a settled payment left undelivered is delivered', async () => {
    const { item, items, deps } = target()
    const { ledger, hold, receiptOf } = setup()
    const products = productsOf(items, deps)
    expect(products.map((product) => product.kind)).toContain(item.kind)
    expect(kindsWithoutItem(items, [item.kind])).toEqual([])
    const order = await target().order()
    const reference = referenceOf(item.kind)
    expect((await hold(reference, order)).kind).toBe('new')
    await ledger.markSettled(reference, receiptOf(reference))
    await reconcilePayments(deps.payments, products)
    const row = await ledger.get(reference)
    expect(row).toMatchObject({ state: 'settled', order: null })
    expect(row?.fulfilledAt).not.toBeNull()
  })

  test('contract: its real answers validate against /openapi.json: delivered, 402 required and not verified, 503 pending, 502 undelivered', async () => {
    const { document, answer, undelivered, challenge } = target()
    if (!document) return
    const documented = await document()
    const { item, deps, price, product, ledger, hold, receiptOf } = setup()
    const checked = async (response: Response) => {
      const body = await response.json()
      const { status } = response
      return {
        status,
        problems: openApiResponseProblems(documented, {
          method: item.method,
          path: item.path,
          status,
          body,
        }),
      }
    }
    const order = await target().order()
    const outcome = await sellItem(
      deps,
      new Request(`http://paid-item.test${item.path}`, { method: item.method.toUpperCase() }),
      item,
      { order, requestKey: `contract:${item.kind}:documents`, price },
    )
    if (outcome.type !== 'challenge') throw new Error(`${item.kind}: no 402 (${outcome.type})`)
    const answers = [
      await checked(await saleResponse(outcome)),
      await checked(
        await saleResponse({
          type: 'refused',
          challenge: outcome.challenge,
          reason: PaymentReason.verifyRejected,
          detail: 'contract: a refused payment',
        }),
      ),
      await checked(
        await saleResponse({
          type: 'pending',
          reference: 'contract',
          why: 'unknown',
          retryAfter: 2,
        }),
      ),
    ]
    if (challenge) answers.push(await checked(await challenge()))
    const reference = referenceOf(product.kind)
    expect((await hold(reference, order)).kind).toBe('new')
    const receipt = receiptOf(reference)
    const delivered = await ledger.deliver(reference, (tx) => product.fulfil(tx, order, receipt), {
      settled: receipt,
    })
    answers.push(await checked(saleAnswerResponse(await answer(delivered.fulfilment, receipt))))
    if (undelivered)
      answers.push(await checked(saleAnswerResponse(await answer(undelivered(order), receipt))))
    expect(answers).toEqual(answers.map(({ status }) => ({ status, problems: [] })))
    expect(answers.slice(0, 3).map(({ status }) => status)).toEqual([402, 402, 503])
    if (undelivered) expect(answers.at(-1)?.status).toBe(502)
  })

  test('contract: its price is the documented one, and what its 402 asks', async () => {
    const { item, deps, price } = setup()
    const { documentedPrice, challenge } = target()
    expect(await documentedPrice()).toBe(price.amount)
    const outcome = await sellItem(
      deps,
      new Request(`http://paid-item.test${item.path}`, { method: item.method.toUpperCase() }),
      item,
      { order: await target().order(), requestKey: `contract:${item.kind}:challenge`, price },
    )
    expect(outcome.type).toBe('challenge')
    const asked = await amountsAsked(await saleResponse(outcome))
    expect(asked.length).toBeGreaterThan(0)
    expect(new Set(asked)).toEqual(new Set([price.amount.toString()]))
    if (!challenge) return
    const routeAsks = await amountsAsked(await challenge())
    expect(routeAsks.length).toBeGreaterThan(0)
    expect(new Set(routeAsks)).toEqual(new Set([price.amount.toString()]))
  })
}

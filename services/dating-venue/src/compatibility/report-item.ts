import {
  definePaidItem,
  type PaymentReceipt,
  paymentLedger,
  type SaleAnswer,
  type SaleProduct,
} from '@agents/payments'
import { type Refusal, refusal } from '@agents/service-kit'
import type { AnyTransaction } from '@agents/service-kit/db'
import { and, eq } from 'drizzle-orm'
import { events, orders, owners } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { creditUndelivered } from '../orders/credits.ts'
import { holdOrder, type OrderInput, releaseOrder } from '../orders/order-state.ts'
import { priceOf } from '../orders/paid-item-text.ts'
import { recordPaidOrder } from '../orders/record-paid-order.ts'
import { REPORT_ERRORS } from './compatibility-errors.ts'
import { loadReportInputs } from './report-inputs.ts'
import { type WrittenReport, writeReport } from './write-report.ts'

const PRICE = { amount: 5_000_000n }
export const REPORT_KIND = 'compatibility_report'
export const REPORT_PATH = '/api/premium/compatibility-report'

export type ReportOrder = { orderId: string; ownerId: number; coupleId: number | null }

/** What was delivered for a paid order; kept in the payment ledger and answering every retry. */
export type ReportFulfilment =
  | { orderId: string; report: string; source: 'model' | 'venue' }
  | { orderId: string; report: null; withheld: string }
  | { orderId: string; report: null; credited: number; cause: string }

/** The report's order as the orders table keeps it. */
export const orderInput = (order: ReportOrder): OrderInput => ({
  id: order.orderId,
  kind: REPORT_KIND,
  ownerId: order.ownerId,
  amountAtomic: PRICE.amount,
})

/** The answer to the payer (and to a later request for the same paid order). */
export const reportAnswer = (
  fulfilment: ReportFulfilment,
  receiptId: string,
): SaleAnswer | Refusal<502> => {
  if ('credited' in fulfilment)
    return refusal(502, REPORT_ERRORS.undelivered, {
      orderId: fulfilment.orderId,
      receiptId,
      credited: fulfilment.credited,
    })
  if ('withheld' in fulfilment)
    return {
      status: 200,
      body: {
        ok: true,
        orderId: fulfilment.orderId,
        receiptId,
        report: null,
        withheld: fulfilment.withheld,
      },
    }
  return {
    status: 200,
    body: { ok: true, orderId: fulfilment.orderId, receiptId, report: fulfilment.report },
  }
}

/**
 * The answer already delivered for a fulfilled order, read back from the
 * payment ledger through `db`: the hold passes its claim's transaction
 * (on PGlite, a read on the database from inside it would wait for it
 * forever).
 */
export const existingReport = async (
  db: AnyTransaction | VenueDeps['database']['db'],
  orderId: string,
): Promise<SaleAnswer | Refusal<502> | undefined> => {
  const [row] = await db
    .select({ reference: orders.paymentReference, fulfilment: paymentLedger.fulfilment })
    .from(orders)
    .innerJoin(paymentLedger, eq(paymentLedger.reference, orders.paymentReference))
    .where(and(eq(orders.id, orderId), eq(orders.status, 'fulfilled')))
  if (!row?.fulfilment) return undefined
  return reportAnswer(row.fulfilment as ReportFulfilment, row.reference!)
}

/** A written or withheld report as delivered. */
const fulfilmentOf = (
  order: ReportOrder,
  written: Exclude<WrittenReport, { kind: 'undeliverable' }>,
): ReportFulfilment =>
  written.kind === 'report'
    ? { orderId: order.orderId, report: written.text, source: written.source }
    : { orderId: order.orderId, report: null, withheld: written.reason }

const writeAtDelivery = async (
  deps: VenueDeps,
  tx: AnyTransaction,
  order: ReportOrder,
): Promise<WrittenReport> => {
  const loaded = await loadReportInputs(tx, {
    ownerId: order.ownerId,
    coupleId: order.coupleId ?? undefined,
  })
  return loaded.ok
    ? await writeReport({ safety: deps.safety, chat: deps.chat }, loaded.inputs)
    : // Checked before the 402; gone since (an erased owner or couple): nothing left to report on.
      { kind: 'withheld', reason: loaded.error }
}

const deliverReport = async (
  deps: VenueDeps,
  tx: AnyTransaction,
  order: ReportOrder,
  receipt: PaymentReceipt,
  prepared: Promise<WrittenReport | undefined> | undefined,
): Promise<ReportFulfilment> => {
  await recordPaidOrder(
    tx,
    { id: order.orderId, kind: REPORT_KIND, ownerId: order.ownerId },
    receipt,
  )
  const early = await prepared
  // Written while the payment settled; one the venue failed to write is re-attempted here.
  const written =
    early && early.kind !== 'undeliverable' ? early : await writeAtDelivery(deps, tx, order)
  if (written.kind !== 'undeliverable') return fulfilmentOf(order, written)
  // Refunds are chat credits of the wallet that owns the doc (the human signs in with it).
  const [owner] = await tx
    .select({ wallet: owners.wallet })
    .from(owners)
    .where(eq(owners.id, order.ownerId))
  const { credits } = await creditUndelivered(tx, {
    wallet: owner?.wallet ?? receipt.payer,
    orderId: order.orderId,
    amountAtomic: BigInt(receipt.amount),
  })
  await tx.insert(events).values({
    kind: 'order_credited',
    detail: { orderId: order.orderId, credits, cause: written.cause },
  })
  return { orderId: order.orderId, report: null, credited: credits, cause: written.cause }
}

/**
 * The report's hooks. The order is held for one payment at a time (a second
 * payment for a paid order is refused before it moves money, with the report
 * it bought); delivery writes the order, its revenue and the report in the
 * ledger's transaction. The model is asked inside that transaction: a report
 * is rare and its answer bounded by the chat timeout, and the reconciler can
 * then deliver a settled order the same way after a crash. A report already
 * written while the payment settled (`prepared`, this request's) is only
 * recorded.
 */
export const reportHooks = (
  deps: VenueDeps,
  prepared?: Promise<WrittenReport | undefined>,
): Omit<SaleProduct<ReportOrder, ReportFulfilment>, 'kind'> => ({
  hold: async (tx, order, reference) => {
    const held = await holdOrder(tx, orderInput(order), reference)
    if (held === 'held') return undefined
    if (held === 'fulfilled') {
      // Paid already: the existing report, and this payment never moves.
      const existing = await existingReport(tx, order.orderId)
      if (existing) return existing
    }
    return refusal(
      409,
      'another payment for this order is being settled; retry shortly',
      { orderId: order.orderId },
      { 'retry-after': '2' },
    )
  },
  release: (tx, order, reference) =>
    releaseOrder(tx, order.orderId, reference, 'payment failed before it settled'),
  fulfil: (tx, order, receipt) => deliverReport(deps, tx, order, receipt, prepared),
})

/**
 * The compatibility report: a private report for an owner, alone or with a
 * couple, one order per owner, couple and UTC day. Every product hook: the
 * order held, released when the payment fails, delivered once.
 */
export const reportItem = definePaidItem({
  kind: REPORT_KIND,
  method: 'post',
  path: REPORT_PATH,
  price: PRICE,
  body: 'legacy-v1',
  what: 'a private compatibility report for an owner, alone or with a couple; one order per owner, couple and UTC day (asked again that day: the same report, free)',
  description: `compatibility_report: a private compatibility report (${priceOf(PRICE.amount)})`,
  outputSchema: { orderId: 'string', receiptId: 'string', report: 'string' },
  // Pull only: the venue broadcasts an MPP payment only once the order's hold
  // took it, so a new payment for a report already delivered moves no money
  // (a push transfer is on chain before the request arrives).
  mppModes: ['pull'],
  product: (deps: VenueDeps) => reportHooks(deps),
})

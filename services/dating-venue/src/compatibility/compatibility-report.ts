import {
  carriesPayment,
  type PaymentReceipt,
  type Product,
  paymentLedger,
  type SaleTerms,
  sellOnce,
} from '@agents/payments'
import type { AnyTransaction } from '@agents/service-kit/db'
import { and, eq } from 'drizzle-orm'
import { spendOutbound } from '../budget/spend-outbound.ts'
import type { Actor } from '../credentials/actors.ts'
import { events, orders, owners } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { creditUndelivered } from '../orders/credits.ts'
import {
  challengeOrder,
  failOrder,
  heldOrderWrite,
  holdOrder,
  type OrderInput,
  releaseOrder,
} from '../orders/order-state.ts'
import { paidOrderWrites, recordPaidOrder } from '../orders/record-paid-order.ts'
import { REPORT_ERRORS } from './compatibility-errors.ts'
import { loadReportInputs, type ReportInputs } from './report-inputs.ts'
import { type WrittenReport, writeReport } from './write-report.ts'

/** compatibility_report: 5.00 USDC. */
export const REPORT_PRICE = { amount: 5_000_000n }
export const REPORT_KIND = 'compatibility_report'
export const REPORT_PATH = '/api/premium/compatibility-report'

/** What a report costs and how its 402 reads: the same for the sale and its early verification. */
export const REPORT_TERMS = {
  price: REPORT_PRICE,
  resource: {
    url: REPORT_PATH,
    description: 'compatibility_report: a private compatibility report (5.00 USDC)',
    outputSchema: { orderId: 'string', receiptId: 'string', report: 'string' },
  },
  body: 'legacy-v1',
  // Pull only: the venue broadcasts an MPP payment only once the order's hold
  // took it, so a new payment for a report already delivered moves no money
  // (a push transfer is on chain before the request arrives).
  mppModes: ['pull'],
} satisfies SaleTerms

/** The spec's deterministic order id: one report per owner, couple (0: none) and UTC day. */
export const reportOrderId = (ownerId: number, coupleId: number | undefined, now = new Date()) =>
  `cr:${ownerId}:${coupleId ?? 0}:${now.toISOString().slice(0, 10)}`

type ReportOrder = { orderId: string; ownerId: number; coupleId: number | null }

/** What was delivered for a paid order; kept in the payment ledger and answering every retry. */
export type ReportFulfilment =
  | { orderId: string; report: string; source: 'model' | 'venue' }
  | { orderId: string; report: null; withheld: string }
  | { orderId: string; report: null; credited: number; cause: string }

const orderInput = (order: ReportOrder): OrderInput => ({
  id: order.orderId,
  kind: REPORT_KIND,
  ownerId: order.ownerId,
  amountAtomic: REPORT_PRICE.amount,
})

/** The answer to the payer (and to a later request for the same paid order). */
export const reportAnswer = (fulfilment: ReportFulfilment, receiptId: string) => {
  if ('credited' in fulfilment)
    return Response.json(
      {
        error: REPORT_ERRORS.undelivered,
        orderId: fulfilment.orderId,
        receiptId,
        credited: fulfilment.credited,
      },
      { status: 502 },
    )
  if ('withheld' in fulfilment)
    return Response.json({
      ok: true,
      orderId: fulfilment.orderId,
      receiptId,
      report: null,
      withheld: fulfilment.withheld,
    })
  return Response.json({
    ok: true,
    orderId: fulfilment.orderId,
    receiptId,
    report: fulfilment.report,
  })
}

/**
 * The report as the payment ledger sells it. The order is held for one
 * payment at a time (a second payment for a paid order is refused before it
 * moves money); delivery writes the order, its revenue and the report in
 * the ledger's transaction. The model is asked inside that transaction:
 * a report is rare and its answer bounded by the chat timeout, and the
 * reconciler can then deliver a settled order the same way after a crash.
 * A report already written while the payment settled (`prepared`) is
 * recorded with the settlement in one statement instead.
 */
export const reportProduct = (
  deps: VenueDeps,
  prepared?: Promise<WrittenReport | undefined>,
): Product<ReportOrder, ReportFulfilment> => ({
  kind: REPORT_KIND,
  hold: async (tx, order, reference) => {
    const held = await holdOrder(tx, orderInput(order), reference)
    if (held === 'held') return undefined
    if (held === 'fulfilled') {
      // Paid already: the existing report, and this payment never moves.
      const existing = await existingReport(tx, order.orderId)
      if (existing) return existing
    }
    return Response.json(
      {
        error: 'another payment for this order is being settled; retry shortly',
        orderId: order.orderId,
      },
      { status: 409, headers: { 'retry-after': '2' } },
    )
  },
  holdAtOnce: (order, reference, claimed) => heldOrderWrite(orderInput(order), reference, claimed),
  release: (tx, order, reference) =>
    releaseOrder(tx, order.orderId, reference, 'payment failed before it settled'),
  fulfil: async (tx, order, receipt) => deliverReport(deps, tx, order, receipt, prepared),
  // The report written while the payment settled: the order, its revenue and
  // the report are recorded with the settlement in one statement.
  fulfilAtOnce: async (order, receipt) => {
    const early = await prepared
    if (!early || early.kind === 'undeliverable') return undefined
    return {
      fulfilment: fulfilmentOf(order, early),
      writes: (paid) =>
        paidOrderWrites(
          { id: order.orderId, kind: REPORT_KIND, ownerId: order.ownerId },
          receipt,
          paid,
        ),
    }
  },
  answer: (fulfilment, receipt) => reportAnswer(fulfilment, receipt.reference),
})

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

/**
 * The answer already delivered for a fulfilled order, read back from the
 * payment ledger through `db`: the hold passes its claim's transaction
 * (on PGlite, a read on the database from inside it would wait for it
 * forever).
 */
const existingReport = async (
  db: AnyTransaction | VenueDeps['database']['db'],
  orderId: string,
) => {
  const [row] = await db
    .select({ reference: orders.paymentReference, fulfilment: paymentLedger.fulfilment })
    .from(orders)
    .innerJoin(paymentLedger, eq(paymentLedger.reference, orders.paymentReference))
    .where(and(eq(orders.id, orderId), eq(orders.status, 'fulfilled')))
  if (!row?.fulfilment) return undefined
  return reportAnswer(row.fulfilment as ReportFulfilment, row.reference!)
}

/**
 * Without a chat model the report is the venue's own composition: local
 * work, written and checked while the payment is verified and settled, so
 * delivery only records it. A configured model is asked only once the
 * money moved (it is an outside call, and its failure is credited).
 */
const prepareReport = (deps: VenueDeps, inputs: ReportInputs) =>
  deps.chat
    ? undefined
    : writeReport({ safety: deps.safety, chat: undefined }, inputs).catch(() => undefined)

export type BuyReportParams = {
  actor: Actor
  ownerId: number
  coupleId: number | undefined
  request: Request
}

export type BuyReportOutcome =
  | { ok: true; response: Response }
  | { ok: false; status: 403 | 404 | 409; error: string }

/**
 * POST /api/premium/compatibility-report after validation: who may buy and
 * what exists are checked first (403/404/409, nothing asked); an order
 * paid today answers with its report again, free; otherwise the 402 (the
 * order `challenged`) or the sale through the payment ledger.
 */
export const buyCompatibilityReport = async (
  deps: VenueDeps,
  { actor, ownerId, coupleId, request }: BuyReportParams,
): Promise<BuyReportOutcome> => {
  // In this order: whether the owner exists, whether the caller acts for
  // it, then the couple (its membership is told only to the owner's side).
  const actsFor = actor.kind === 'owner' ? actor.owner.id : actor.endpoint.ownerId
  if (actsFor !== ownerId) {
    const [owner] = await deps.database.db
      .select({ id: owners.id })
      .from(owners)
      .where(eq(owners.id, ownerId))
    if (!owner) return { ok: false, status: 404, error: REPORT_ERRORS.noSuchOwner }
    return { ok: false, status: 403, error: REPORT_ERRORS.notYourOwner }
  }
  const loaded = await loadReportInputs(deps.database.db, { ownerId, coupleId })
  if (!loaded.ok) return loaded
  const order: ReportOrder = {
    orderId: reportOrderId(ownerId, coupleId),
    ownerId,
    coupleId: coupleId ?? null,
  }
  const paying = carriesPayment(request)
  // A paying request writes the report (the model, asked up to twice, and the
  // check of up to two texts): spent from the payers' budget before the
  // payment is settled, so a spent budget is a 503 and nothing is charged.
  if (paying) await spendOutbound(deps, { paid: true }, { model: 2, moderation: 2 })
  // Paid today already: the same report, free. A request carrying a payment
  // goes to the ledger instead: the same payment is answered with its receipt,
  // and a new one is refused by the order's hold before it moves money.
  const existing = paying ? undefined : await existingReport(deps.database.db, order.orderId)
  if (existing) return { ok: true, response: existing }
  if (!paying) await challengeOrder(deps.database.db, orderInput(order))
  const response = await sellOnce(deps.payments, request, {
    ...REPORT_TERMS,
    product: reportProduct(deps, paying ? prepareReport(deps, loaded.inputs) : undefined),
    order,
    requestKey: `report:${order.orderId}`,
  })
  if (paying && response.status === 402) {
    const { reason, detail } = (await response.clone().json()) as {
      reason?: string
      detail?: string
    }
    await failOrder(deps.database.db, orderInput(order), `${reason ?? 'refused'}: ${detail ?? ''}`)
  }
  return { ok: true, response }
}

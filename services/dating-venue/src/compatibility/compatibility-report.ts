import { carriesPayment, type SaleAnswer, type SaleOutcome, sellItem } from '@agents/payments'
import { type Refusal, refusal } from '@agents/service-kit'
import { eq } from 'drizzle-orm'
import { spendOutbound } from '../budget/spend-outbound.ts'
import type { Actor } from '../credentials/actors.ts'
import { owners } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { challengeOrder, failOrder } from '../orders/order-state.ts'
import { REPORT_ERRORS } from './compatibility-errors.ts'
import { loadReportInputs, type ReportInputs } from './report-inputs.ts'
import {
  existingReport,
  orderInput,
  type ReportFulfilment,
  type ReportOrder,
  reportHooks,
  reportItem,
} from './report-item.ts'
import { writeReport } from './write-report.ts'

/** The spec's deterministic order id: one report per owner, couple (0: none) and UTC day. */
export const reportOrderId = (ownerId: number, coupleId: number | undefined, now = new Date()) =>
  `cr:${ownerId}:${coupleId ?? 0}:${now.toISOString().slice(0, 10)}`

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
  | { ok: true; outcome: SaleOutcome<ReportFulfilment> }
  | { ok: true; paidToday: SaleAnswer | Refusal<502> }
  | Refusal<403 | 404 | 409 | 503>

/**
 * POST /api/premium/compatibility-report after validation: who may buy and
 * what exists are checked first (403/404/409, nothing asked); an order
 * paid today answers with its report again, free; otherwise the 402 (the
 * order `challenged`) or the sale through the payment ledger. The route
 * answers the outcome (`reportAnswer`).
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
    if (!owner) return refusal(404, REPORT_ERRORS.noSuchOwner)
    return refusal(403, REPORT_ERRORS.notYourOwner)
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
  if (paying) {
    const spent = await spendOutbound(deps, { paid: true }, { model: 2, moderation: 2 })
    if (spent) return spent
  }
  // Paid today already: the same report, free. A request carrying a payment
  // goes to the ledger instead: the same payment is answered with its receipt,
  // and a new one is refused by the order's hold before it moves money.
  const existing = paying ? undefined : await existingReport(deps.database.db, order.orderId)
  if (existing) return { ok: true, paidToday: existing }
  if (!paying) await challengeOrder(deps.database.db, orderInput(order))
  const outcome = await sellItem(deps, request, reportItem, {
    // This request's report, written while its payment settles; the reconciler writes its own.
    hooks: reportHooks(deps, paying ? prepareReport(deps, loaded.inputs) : undefined),
    order,
    requestKey: `report:${order.orderId}`,
  })
  // A payment refused before it moved: the order says why (the 402's reason and detail).
  if (paying && (outcome.type === 'refused' || outcome.type === 'challenge')) {
    const { reason, detail } =
      outcome.type === 'refused' ? outcome : { reason: undefined, detail: undefined }
    await failOrder(deps.database.db, orderInput(order), `${reason ?? 'refused'}: ${detail ?? ''}`)
  }
  return { ok: true, outcome }
}

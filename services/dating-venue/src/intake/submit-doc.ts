import { createHash } from 'node:crypto'
import {
  carriesPayment,
  paymentLedger,
  type SaleAnswer,
  type SaleOutcome,
  sellItem,
} from '@agents/payments'
import { refusal } from '@agents/service-kit'
import { and, desc, eq, inArray } from 'drizzle-orm'
import { runChaperone } from '../admission/chaperone.ts'
import { HELD_FOR_REVIEW } from '../admission/persona-state.ts'
import { readDraft } from '../ask-matchmaker/drafts.ts'
import { INTERVIEW } from '../ask-matchmaker/interview.ts'
import { PAID, spendOutbound } from '../budget/spend-outbound.ts'
import { owners, personas } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { Heart, heartProse } from '../heart/heart-schema.ts'
import { screenPersonalData } from '../safety/index.ts'
import {
  dollars,
  FLOOR_HOLDING_CENTS,
  HUMAN_MODEL,
  reviewLabel,
  SUBMIT_DOC_ERRORS,
  type SubmitDocRefusal,
  walletRefusal,
} from './submit-doc-checks.ts'
import { chatDocItem, type SubmitDocFulfilment, type SubmitDocOrder } from './submit-doc-item.ts'

export type SubmitDocBody = {
  handle: string
  contactRef?: string | undefined
  homeMarket: 'bay_area' | 'nyc' | 'other'
  activeMarket: 'bay_area' | 'nyc' | 'remote'
}

/** The doc the draft makes, or which of its fields are still missing. */
export const docFromDraft = (draft: Record<string, unknown>) => {
  const missing = INTERVIEW.filter((step) => !step.optional && draft[step.field] === undefined).map(
    (step) => step.field,
  )
  if (missing.length > 0) return { ok: false as const, missing }
  const parsed = Heart.safeParse(draft)
  if (!parsed.success) return { ok: false as const, issues: parsed.error.issues }
  return { ok: true as const, heart: parsed.data }
}

/**
 * POST /api/chat/submit-doc: a signed-in adult's drafted doc becomes a
 * persona held for review, paid as doc_submit. Everything that can refuse
 * runs before the 402 (nothing is ever charged for a refusal): the draft
 * complete, the wallet without a persona in review or on the floor, the
 * handle free, then the human floor entry rule (the holding through the
 * oracle, the chaperone on the heart; the attestation is the route's).
 */
export const submitDoc = async (
  deps: VenueDeps,
  { wallet, body, request }: { wallet: string; body: SubmitDocBody; request: Request },
): Promise<SubmitDocRefusal | { ok: true; outcome: SaleOutcome<SubmitDocFulfilment> }> => {
  const { draft } = await readDraft(deps.database, wallet)
  const doc = docFromDraft(draft)
  if (!doc.ok)
    return doc.missing
      ? refusal(400, `${SUBMIT_DOC_ERRORS.draftIncomplete} (missing: ${doc.missing.join(', ')})`, {
          missing: doc.missing,
        })
      : refusal(400, SUBMIT_DOC_ERRORS.invalidDraft, { issues: doc.issues })
  const found = screenPersonalData(heartProse(doc.heart)).found
  if (found.length > 0) return refusal(400, SUBMIT_DOC_ERRORS.personalData(found))

  // A request carrying a payment goes to the ledger for these: the same payment is answered with
  // what it bought, and a new one is refused by the hold before it moves money.
  const refused = carriesPayment(request)
    ? undefined
    : await walletRefusal(deps.database.db, wallet, body.handle)
  if (refused) return refused

  // The wallet and what it submits: the same payment may only ever file this doc.
  const requestKey = `submit-doc:${wallet}:${createHash('sha256')
    .update(JSON.stringify({ ...body, heart: doc.heart }))
    .digest('hex')}`
  // A retry of a payment the ledger already holds for this very doc is answered from the
  // ledger: the holding or the chaperone may have moved since it paid, and a paid doc is
  // delivered (held for review), never refused after the money moved.
  if (carriesPayment(request) && (await paidAlready(deps, requestKey)))
    return { ok: true, outcome: await sell(deps, request, body, doc.heart, wallet, requestKey) }

  const holding = await deps.holdings(wallet)
  if (holding < FLOOR_HOLDING_CENTS)
    return refusal(403, SUBMIT_DOC_ERRORS.holdingTooLow(holding < 0n ? 0n : holding), {
      holdingUsd: dollars(holding < 0n ? 0n : holding),
      neededUsd: dollars(FLOOR_HOLDING_CENTS),
    })
  // Before the chaperone and any 402: a spent budget is a 503, nothing charged or written.
  const spent = await spendOutbound(deps, PAID, { moderation: 1 })
  if (spent) return spent
  const verdict = await runChaperone(deps, doc.heart)
  if (verdict.unavailable) return refusal(503, SUBMIT_DOC_ERRORS.safetyUnavailable)
  if (verdict.verdict !== 'allow')
    return refusal(422, SUBMIT_DOC_ERRORS.chaperone, { reason: verdict.reason })

  return { ok: true, outcome: await sell(deps, request, body, doc.heart, wallet, requestKey) }
}

/** Whether the ledger holds a payment for this exact doc that moved or may have moved money. */
const paidAlready = async (deps: Pick<VenueDeps, 'database'>, requestKey: string) => {
  const [row] = await deps.database.db
    .select({ reference: paymentLedger.reference })
    .from(paymentLedger)
    .where(
      and(
        eq(paymentLedger.requestKey, requestKey),
        inArray(paymentLedger.state, ['claimed', 'settling', 'unknown', 'settled']),
      ),
    )
    .limit(1)
  return row !== undefined
}

const sell = (
  deps: VenueDeps,
  request: Request,
  body: SubmitDocBody,
  heart: SubmitDocOrder['heart'],
  wallet: string,
  requestKey: string,
) =>
  sellItem(deps, request, chatDocItem, {
    order: {
      wallet,
      handle: body.handle,
      heart,
      contactRefSealed: body.contactRef ? deps.sealer.seal(body.contactRef) : null,
      homeMarket: body.homeMarket,
      activeMarket: body.activeMarket,
    },
    requestKey,
  })

/** How a submitted doc is answered: held for review, not admitted. */
export const submitDocAnswer = (filed: SubmitDocFulfilment): SaleAnswer => ({
  status: 200,
  body: { ...filed, review: HELD_FOR_REVIEW, admitted: false },
})

/** The review status of the wallet's latest submitted doc, for GET /api/chat/me (null before any). */
export const reviewStatus = async (deps: Pick<VenueDeps, 'database'>, wallet: string) => {
  const [row] = await deps.database.db
    .select({
      personaId: personas.id,
      handle: personas.handle,
      status: personas.status,
      reason: personas.reason,
    })
    .from(personas)
    .innerJoin(owners, eq(owners.id, personas.ownerId))
    .where(and(eq(owners.wallet, wallet), eq(personas.model, HUMAN_MODEL)))
    .orderBy(desc(personas.id))
    .limit(1)
  if (!row) return null
  return {
    personaId: row.personaId,
    handle: row.handle,
    status: reviewLabel(row),
    // Why it was rejected or held on reports; held for review says it all in its status.
    reason:
      row.status === 'rejected' || (row.status === 'held' && row.reason !== HELD_FOR_REVIEW)
        ? row.reason
        : null,
  }
}

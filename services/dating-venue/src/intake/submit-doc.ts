import { createHash, randomBytes } from 'node:crypto'
import { carriesPayment, type Product, paymentLedger, sellOnce } from '@agents/payments'
import { and, desc, eq, inArray, isNull, ne, or, sql } from 'drizzle-orm'
import { runChaperone } from '../admission/chaperone.ts'
import { HELD_FOR_REVIEW, insertPersona } from '../admission/persona-state.ts'
import type { SeatExecutor } from '../admission/seats.ts'
import { PAID, spendOutbound } from '../budget/spend-outbound.ts'
import { newSecret } from '../credentials/credentials.ts'
import { events, heartFiles, owners, personas } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { Heart, heartProse } from '../heart/heart-schema.ts'
import { readDraft } from '../matchmaker/drafts.ts'
import { INTERVIEW } from '../matchmaker/interview.ts'
import { recordPaidOrder } from '../orders/record-paid-order.ts'
import { screenPersonalData } from '../safety/index.ts'
import { DOC_SUBMIT_PRICE } from './heart-file.ts'

export const SUBMIT_DOC_PATH = '/api/chat/submit-doc'

/** The human floor entry rule: a holding worth at least this many US cents of the studio token. */
export const FLOOR_HOLDING_CENTS = 5_000n

/**
 * The payment ledger's name for this product: its own, so the reconciler
 * delivers a settled payment as this route does (a persona held for review),
 * not as intake's doc_submit. The order and its revenue are `doc_submit`.
 */
export const CHAT_DOC_KIND = 'doc_submit_chat'

/** What a human's persona is entered as: it tells them apart from agents' personas on the owner. */
export const HUMAN_MODEL = 'human (chat page)'

export const SUBMIT_DOC_ERRORS = {
  draftIncomplete: 'draft incomplete: answer the interview first',
  invalidDraft: 'the draft does not make a valid dating doc',
  holdingTooLow: (cents: bigint) =>
    `the human floor needs a holding worth at least $${dollars(FLOOR_HOLDING_CENTS)} of the studio token; this wallet holds $${dollars(cents)}`,
  chaperone: 'the chaperone did not pass this doc: nothing was charged',
  safetyUnavailable: 'safety check unavailable: nothing was charged; retry later',
  alreadySubmitted: 'this wallet already has a persona on the floor or in review',
  inFlight: "another payment for this wallet's doc is being settled; retry shortly",
  handleTaken: 'handle taken',
  personalData: (found: string[]) =>
    `personal data (${found.join(', ')}) belongs in contactRef only, never in the doc`,
} as const

const dollars = (cents: bigint) => `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`

export type SubmitDocBody = {
  handle: string
  contactRef?: string | undefined
  homeMarket: 'bay_area' | 'nyc' | 'other'
  activeMarket: 'bay_area' | 'nyc' | 'remote'
}

export type SubmitDocRefusal =
  | { ok: false; status: 400; error: string; missing?: string[]; issues?: unknown[] }
  | { ok: false; status: 403; error: string; holdingUsd: string; neededUsd: string }
  | { ok: false; status: 409; error: string; personaId: number; review: string }
  | { ok: false; status: 422; error: string; reason: string }
  | { ok: false; status: 503; error: string }

/** What a doc_submit payment from the chat page buys, kept in the payment ledger until filed. */
type SubmitDocOrder = {
  wallet: string
  handle: string
  heart: Heart
  contactRefSealed: string | null
  homeMarket: string
  activeMarket: string
}
type SubmitDocFulfilment = { personaId: number; ownerId: number; orderId: string }

/**
 * The persona, its doc and the owner keyed by the signed-in wallet (not the
 * paying one: a friend may pay), entered held for review, in one
 * transaction with the ledger's record and the order.
 */
export const chatDocProduct = (): Product<SubmitDocOrder, SubmitDocFulfilment> => ({
  kind: CHAT_DOC_KIND,
  // A new payment, in its claim's transaction and before it moves: the wallet's checks again
  // (a request carrying a payment skipped them, so that a retry is answered by the ledger).
  hold: async (tx, order, reference) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`submit-doc:${order.wallet}`}))`)
    const refusal = await walletRefusal(tx, order.wallet, order.handle)
    if (refusal) {
      const { ok: _, status, ...body } = refusal
      return Response.json(body, { status })
    }
    const [inFlight] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(paymentLedger)
      .where(
        and(
          eq(paymentLedger.kind, CHAT_DOC_KIND),
          sql`${paymentLedger.order}->>'wallet' = ${order.wallet}`,
          ne(paymentLedger.reference, reference),
          or(
            inArray(paymentLedger.state, ['claimed', 'settling', 'unknown']),
            and(eq(paymentLedger.state, 'settled'), isNull(paymentLedger.fulfilment)),
          ),
        ),
      )
    return (inFlight?.count ?? 0) > 0
      ? Response.json(
          { error: SUBMIT_DOC_ERRORS.inFlight },
          { status: 409, headers: { 'retry-after': '2' } },
        )
      : undefined
  },
  fulfil: async (tx, order, receipt) => {
    // The wallet's login is SIWE: this credential is never issued, only a hash the row needs.
    const [created] = await tx
      .insert(owners)
      .values({ wallet: order.wallet, credentialHash: newSecret().hash })
      .onConflictDoNothing({ target: owners.wallet })
      .returning({ id: owners.id })
    const owner =
      created ??
      (await tx.select({ id: owners.id }).from(owners).where(eq(owners.wallet, order.wallet)))[0]!
    await tx.insert(heartFiles).values({
      ownerId: owner.id,
      homeMarket: order.homeMarket,
      activeMarket: order.activeMarket,
      researchOptin: 'none',
      ageAttested: true,
      contactRefSealed: order.contactRefSealed,
      heart: order.heart,
      paymentReference: receipt.reference,
    })
    const personaId = await insertPersona(
      tx,
      {
        // Paid for: a handle another doc took since the check must not leave the payment undelivered.
        handle: (await handleTaken(tx, order.handle))
          ? `${order.handle}-${randomVowels()}`
          : order.handle,
        model: HUMAN_MODEL,
        heart: order.heart,
        ownerId: owner.id,
        homeMarket: order.homeMarket,
        activeMarket: order.activeMarket,
      },
      { status: 'held', reason: HELD_FOR_REVIEW },
    )
    const orderId = await recordPaidOrder(tx, { kind: 'doc_submit', ownerId: owner.id }, receipt)
    await tx
      .insert(events)
      .values({ kind: 'persona_submitted_for_review', detail: { personaId, ownerId: owner.id } })
    return { personaId, ownerId: owner.id, orderId }
  },
  answer: (filed) =>
    Response.json({ ...filed, review: HELD_FOR_REVIEW, admitted: false }, { status: 200 }),
})

/** Whether a persona in review or on the floor holds the handle (any case). */
const handleTaken = async (tx: SeatExecutor, handle: string) =>
  (
    await tx
      .select({ id: personas.id })
      .from(personas)
      .where(
        and(
          sql`lower(${personas.handle}) = lower(${handle})`,
          sql`${personas.status} IN ('pending', 'admitted', 'held')`,
        ),
      )
      .limit(1)
  ).length > 0

const randomVowels = () => Array.from(randomBytes(6), (byte) => 'aeiou'[byte % 5]).join('')

/** The wallet's persona that is in review or on the floor, if any. */
const liveHumanPersona = async (tx: SeatExecutor, wallet: string) => {
  const [row] = await tx
    .select({ id: personas.id, status: personas.status, reason: personas.reason })
    .from(personas)
    .innerJoin(owners, eq(owners.id, personas.ownerId))
    .where(
      and(
        eq(owners.wallet, wallet),
        eq(personas.model, HUMAN_MODEL),
        sql`${personas.status} IN ('pending', 'admitted', 'held')`,
      ),
    )
    .orderBy(desc(personas.id))
    .limit(1)
  return row
}

/** What refuses a wallet's submission whatever it pays: a persona of its own live, the handle taken. */
const walletRefusal = async (
  tx: SeatExecutor,
  wallet: string,
  handle: string,
): Promise<SubmitDocRefusal | undefined> => {
  const live = await liveHumanPersona(tx, wallet)
  if (live)
    return {
      ok: false,
      status: 409,
      error: SUBMIT_DOC_ERRORS.alreadySubmitted,
      personaId: live.id,
      review: reviewLabel(live),
    }
  if (await handleTaken(tx, handle))
    return { ok: false, status: 400, error: SUBMIT_DOC_ERRORS.handleTaken }
  return undefined
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
): Promise<SubmitDocRefusal | { ok: true; response: Response }> => {
  const { draft } = await readDraft(deps.database, wallet)
  const doc = docFromDraft(draft)
  if (!doc.ok)
    return doc.missing
      ? {
          ok: false,
          status: 400,
          error: `${SUBMIT_DOC_ERRORS.draftIncomplete} (missing: ${doc.missing.join(', ')})`,
          missing: doc.missing,
        }
      : { ok: false, status: 400, error: SUBMIT_DOC_ERRORS.invalidDraft, issues: doc.issues }
  const found = screenPersonalData(heartProse(doc.heart)).found
  if (found.length > 0)
    return { ok: false, status: 400, error: SUBMIT_DOC_ERRORS.personalData(found) }

  // A request carrying a payment goes to the ledger for these: the same payment is answered with
  // what it bought, and a new one is refused by the hold before it moves money.
  const refusal = carriesPayment(request)
    ? undefined
    : await walletRefusal(deps.database.db, wallet, body.handle)
  if (refusal) return refusal

  // The wallet and what it submits: the same payment may only ever file this doc.
  const requestKey = `submit-doc:${wallet}:${createHash('sha256')
    .update(JSON.stringify({ ...body, heart: doc.heart }))
    .digest('hex')}`
  // A retry of a payment the ledger already holds for this very doc is answered from the
  // ledger: the holding or the chaperone may have moved since it paid, and a paid doc is
  // delivered (held for review), never refused after the money moved.
  if (carriesPayment(request) && (await paidAlready(deps, requestKey)))
    return { ok: true, response: await sell(deps, request, body, doc.heart, wallet, requestKey) }

  const holding = await deps.holdings(wallet)
  if (holding < FLOOR_HOLDING_CENTS)
    return {
      ok: false,
      status: 403,
      error: SUBMIT_DOC_ERRORS.holdingTooLow(holding < 0n ? 0n : holding),
      holdingUsd: dollars(holding < 0n ? 0n : holding),
      neededUsd: dollars(FLOOR_HOLDING_CENTS),
    }
  // Before the chaperone and any 402: a spent budget is a 503, nothing charged or written.
  await spendOutbound(deps, PAID, { moderation: 1 })
  const verdict = await runChaperone(deps, doc.heart)
  if (verdict.unavailable)
    return { ok: false, status: 503, error: SUBMIT_DOC_ERRORS.safetyUnavailable }
  if (verdict.verdict !== 'allow')
    return { ok: false, status: 422, error: SUBMIT_DOC_ERRORS.chaperone, reason: verdict.reason }

  return { ok: true, response: await sell(deps, request, body, doc.heart, wallet, requestKey) }
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
  sellOnce(deps.payments, request, {
    price: DOC_SUBMIT_PRICE,
    resource: {
      url: SUBMIT_DOC_PATH,
      description: 'doc_submit: submit your drafted dating doc for review (1.00 USDC)',
      outputSchema: { personaId: 'integer', review: 'string', orderId: 'string' },
    },
    body: 'legacy-v1',
    product: chatDocProduct(),
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

/** How the chat page names a human's persona status. */
export const reviewLabel = ({ status, reason }: { status: string; reason: string | null }) =>
  status === 'held' && reason === HELD_FOR_REVIEW
    ? 'held for review'
    : status === 'pending'
      ? 'approved, waiting for a seat'
      : status === 'held'
        ? 'held'
        : status

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

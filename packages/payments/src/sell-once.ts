import type { SQL } from 'drizzle-orm'
import { Receipt } from 'mppx'
import type { ChainAnswer, SettlementReader } from './chain/settlement-reader.ts'
import { type PaymentChallenge, paymentChallenge } from './challenge.ts'
import { PaymentReason } from './errors.ts'
import type { FacilitatorSettings } from './facilitator-client.ts'
import {
  encodeBase64Json,
  PAYMENT_RECEIPT_HEADER,
  PAYMENT_RESPONSE_HEADER,
  PAYMENT_SIGNATURE_HEADER,
  X_PAYMENT_HEADER,
  X_PAYMENT_RESPONSE_HEADER,
} from './headers.ts'
import type { AtOnce, LedgerTx, PaymentLedger } from './ledger/ledger.ts'
import type { LedgerRow } from './ledger/ledger-table.ts'
import type { MppAdapter, MppAttempt, MppModes } from './mpp/create-mpp-adapter.ts'
import type { SettleOutcome } from './settle-outcome.ts'
import type { PaymentReceipt, Price, Resource, X402Rail } from './types.ts'
import { readX402Payment, settleX402, verifyX402, type X402Attempt } from './x402/x402-attempt.ts'

/** The part of a pino logger the payment path writes to. */
export type PaymentsLogger = {
  error: (details: object, message: string) => void
  warn: (details: object, message: string) => void
  info: (details: object, message: string) => void
}

export type PaymentsDeps = {
  x402?: { rails: readonly X402Rail[]; facilitator: FacilitatorSettings }
  mpp?: MppAdapter
  ledger: PaymentLedger
  /** Read-only chain access that settles lost outcomes. */
  chain: SettlementReader
  /** How long a request may hold a payment it is settling before another may take it over. */
  leaseSeconds: number
  logger?: PaymentsLogger
}

/**
 * What a paid route sells, described once so that a request and the
 * reconciler deliver it the same way. Every function that takes `tx` runs
 * inside the ledger's transaction: what it writes commits together with the
 * ledger's record of it, or not at all.
 */
export type Product<order, fulfilment> = {
  /** Stable name stored with each payment; the reconciler finds the product by it. */
  kind: string
  /**
   * Reserves what is sold, in the claim's transaction (the swap rail's match
   * lease). A Response refuses the sale before any money moves.
   */
  hold?: (tx: LedgerTx, order: order, reference: string) => Promise<Response | undefined>
  /**
   * Optional: the same reservation as `hold`, as one data-modifying CTE body
   * (`insert ... select ... from ${claimed} ... returning 1`) that writes only
   * when the ledger's claim did and returns a row only when it holds. The
   * claim and the hold are then one statement instead of a transaction;
   * whatever it cannot hold (a refusal, a payment already in the ledger) is
   * decided again by `hold`, which must be given too.
   */
  holdAtOnce?: (order: order, reference: string, claimed: SQL) => SQL
  /** Gives the reservation back: the payment failed and nothing moved. */
  release?: (tx: LedgerTx, order: order, reference: string) => Promise<void>
  /** Delivers, at most once per payment; what it returns is kept and answers every retry. */
  fulfil: (tx: LedgerTx, order: order, receipt: PaymentReceipt) => Promise<fulfilment>
  /**
   * Optional, for a payment that just settled: the same delivery as `fulfil`
   * when it needs no database read, written in one statement with the
   * ledger's record (`deliverAtOnce`) instead of a transaction. Undefined
   * (or a failure to prepare it): `fulfil` delivers.
   */
  fulfilAtOnce?: (order: order, receipt: PaymentReceipt) => Promise<AtOnce<fulfilment> | undefined>
  /** The answer to the payer, from what was delivered. */
  answer: (fulfilment: fulfilment, receipt: PaymentReceipt) => Response | Promise<Response>
}

// biome-ignore lint/suspicious/noExplicitAny: a registry of products of any order and fulfilment
export type AnyProduct = Product<any, any>

export type SellParameters<order, fulfilment> = {
  price: Price
  resource: Resource
  /** The 402 body: the venue's legacy v1 challenge, or `{ error }` only. */
  body?: 'legacy-v1' | 'minimal'
  product: Product<order, fulfilment>
  /** What to deliver (JSON): stored with the payment so the reconciler can deliver it. */
  order: order
  /** What the payment is for (a match id, a hash of the request body): a retry must present the same. */
  requestKey: string
  /** How MPP may pay this route (e.g. `['pull']`); the adapter's default (push) when absent. */
  mppModes?: MppModes
  /**
   * Checks the paying wallet before anything is recorded or moved; a Response
   * refuses the payment. Only meaningful where the payer's own signature is
   * what gets settled: x402 (the EIP-3009 `from`, its signature checked by
   * the facilitator) and MPP pull (the signer recovered from the transaction).
   * An MPP push payer is only the credential's claim, and has paid already.
   */
  payer?: (payer: string) => Response | undefined
}

/** What a route charges and how its 402 reads, without what is sold: what `verifyAhead` needs. */
export type SaleTerms = Omit<
  SellParameters<unknown, unknown>,
  'product' | 'order' | 'requestKey' | 'payer'
>

type Attempt = X402Attempt | MppAttempt

/**
 * Payments read and verifications started by `verifyAhead`, by request: each
 * is used once, by the sale of the same request at the same requirements.
 */
const verifiedAhead = new WeakMap<
  Request,
  { requirements: string; attempt: X402Attempt; verifying: ReturnType<typeof verifyX402> }
>()

/** What a payment is read against: the same requirements read the same payment the same way. */
const requirementsKey = ({ offered, offeredV1 }: PaymentChallenge) =>
  JSON.stringify([offered, offeredV1])

/**
 * Starts the facilitator's `/verify` of a request's x402 payment as the
 * request arrives, so that it runs beside the route's own checks (its
 * credential, its reads) instead of after them. Verifying is a question to
 * the facilitator: nothing is written and nothing moves, and a request the
 * route refuses only cost that question. `sellOnce` on the same request
 * and terms takes the payment as read here and the answer, instead of
 * reading and asking again.
 *
 * @example
 * app.use(REPORT_PATH, (c, next) => (verifyAhead(deps.payments, c.req.raw, terms), next()))
 */
export const verifyAhead = (deps: PaymentsDeps, request: Request, terms: SaleTerms) => {
  if (!deps.x402) return
  const challenge = paymentChallenge(deps, request, terms)
  const read = readPayment(deps, request, terms, challenge)
  if (!read?.ok || read.attempt.rail !== 'x402') return
  verifiedAhead.set(request, {
    requirements: requirementsKey(challenge),
    attempt: read.attempt,
    verifying: verifyX402(deps.x402.facilitator, read.attempt),
  })
}

/** What `verifyAhead` read and asked for this request, if the sale offers the same requirements. */
const takeAhead = (request: Request, challenge: PaymentChallenge) => {
  const ahead = verifiedAhead.get(request)
  if (!ahead) return undefined
  verifiedAhead.delete(request)
  return ahead.requirements === requirementsKey(challenge) ? ahead : undefined
}

type Sale = {
  deps: PaymentsDeps
  request: Request
  params: SellParameters<unknown, unknown>
  challenge: PaymentChallenge
  attempt: Attempt
}

/**
 * Sells one request exactly once. Without payment: the 402. With one: the
 * payment is claimed in the ledger (and the product held) before any money
 * moves, verified, settled, and the goods delivered in one transaction with
 * the ledger's record; a retry of the same payment gets the same answer.
 * When the settle answer is lost, the chain decides; when it cannot yet,
 * the answer is a 503 with `Retry-After`, never a 402 that asks to pay again.
 */
export const sellOnce = async <order, fulfilment>(
  deps: PaymentsDeps,
  request: Request,
  params: SellParameters<order, fulfilment>,
): Promise<Response> => {
  const challenge = paymentChallenge(deps, request, params)
  const ahead = takeAhead(request, challenge)
  const read = ahead
    ? { ok: true as const, attempt: ahead.attempt }
    : readPayment(deps, request, params, challenge)
  if (!read) return challenge.respond()
  if (!read.ok) return challenge.respond(read)
  const refusedPayer = params.payer?.(read.attempt.payer)
  if (refusedPayer) return refusedPayer
  const sale: Sale = {
    deps,
    request,
    params: params as SellParameters<unknown, unknown>,
    challenge,
    attempt: read.attempt,
  }
  const { attempt } = sale
  const { product, order } = params
  try {
    // x402 is verified while the claim commits (straight into `settling`), so
    // a verified payment goes to settle with nothing left to write, and a
    // refused one is withdrawn: its row and its hold are taken back before
    // the 402, as if never written. A retry of a payment already in the
    // ledger fails verification (its nonce is used) and is answered from the
    // ledger.
    const verifying =
      attempt.rail === 'x402'
        ? (ahead?.verifying ?? verifyX402(deps.x402!.facilitator, attempt))
        : undefined
    const claiming = deps.ledger
      .claim(
        {
          reference: attempt.reference,
          kind: product.kind,
          requestKey: params.requestKey,
          rail: attempt.rail,
          network: attempt.rail === 'x402' ? attempt.requirement.network : attempt.network,
          amount: params.price.amount,
          payTo: attempt.rail === 'x402' ? attempt.requirement.payTo : attempt.payTo,
          payer: attempt.payer,
          proof: attempt.proof,
          order,
        },
        {
          leaseSeconds: deps.leaseSeconds,
          hold: product.hold && ((tx) => product.hold!(tx, order, attempt.reference)),
          holdAtOnce:
            product.holdAtOnce &&
            ((claimed) => product.holdAtOnce!(order, attempt.reference, claimed)),
          state: 'settling',
        },
      )
      .catch((error: unknown) => {
        // Nothing is recorded and nothing moved yet; the payer may retry with the same payment.
        deps.logger?.error({ err: error, reference: attempt.reference }, 'payment claim failed')
        return undefined
      })
    if (verifying) {
      const verified = await verifying
      if (!verified.ok) {
        const claim = await claiming
        if (claim?.kind === 'new')
          await deps.ledger.withdraw(
            attempt.reference,
            claim,
            `${verified.reason}: ${verified.detail}`,
            product.release && ((tx) => product.release!(tx, order, attempt.reference)),
          )
        return await refusedBeforeClaim(sale, verified)
      }
    }
    const claim = await claiming
    if (!claim) return pending(attempt.reference, 'unknown', retryAfterSeconds(deps))
    if (claim.kind === 'refused') return claim.response
    if (claim.kind === 'existing') return await answerExisting(sale, claim.row)
    const outcome =
      attempt.rail === 'x402'
        ? await settleX402(deps.x402!.facilitator, attempt)
        : await deps.mpp!.settle(request, params.price, params.resource, params.mppModes)
    return await afterSettle(sale, outcome, claim.settleAttempts)
  } catch (error) {
    // The database or the chain failed mid-way: the ledger row keeps what is
    // known, the reconciler finishes it, and the same payment may be retried.
    deps.logger?.error({ err: error, reference: attempt.reference }, 'paid request interrupted')
    return pending(attempt.reference, 'unknown', retryAfterSeconds(deps))
  }
}

/** Only the request the payment was made for is answered from the ledger. */
const answerExisting = (sale: Sale, row: LedgerRow) => {
  const { params, challenge } = sale
  if (row.requestKey !== params.requestKey || row.kind !== params.product.kind)
    return challenge.respond({
      reason: PaymentReason.alreadyUsed,
      detail: 'this payment was already used for another request',
    })
  return resume(sale, row)
}

/**
 * The facilitator refused to verify a payment that has no claim yet: a
 * new payment is refused (nothing written); a payment the ledger knows is
 * a retry, answered from its row (a settle sent before is checked on-chain).
 */
const refusedBeforeClaim = async (
  sale: Sale,
  refusal: { reason: PaymentReason; detail: string },
) => {
  const { deps, attempt, challenge } = sale
  const row = await deps.ledger.get(attempt.reference)
  if (!row) return challenge.respond(refusal)
  if (row.state !== 'failed') return answerExisting(sale, row)
  if (row.settleAttempts > 0 && row.requestKey === sale.params.requestKey) {
    const answer = await askChain(deps, row)
    if (answer?.status === 'used') return settledOnChain(sale, row, answer.transaction)
  }
  return challenge.respond(refusal)
}

/** A request whose payment is already in the ledger: a retry, or a race with another request. */
const resume = async (sale: Sale, row: LedgerRow): Promise<Response> => {
  const { deps, attempt } = sale
  if (row.state === 'settled') return deliverAndAnswer(sale)
  const leaseLive = row.leaseUntil !== null && row.leaseUntil.getTime() > Date.now()
  const leaseLeft = leaseLive ? Math.ceil((row.leaseUntil!.getTime() - Date.now()) / 1000) : 1
  if (row.state === 'claimed' && row.settleAttempts === 0) {
    if (leaseLive) return pending(attempt.reference, 'busy', leaseLeft)
    if (!(await deps.ledger.takeOver(row, deps.leaseSeconds)))
      return pending(attempt.reference, 'busy', 1)
    return settleAndDeliver(sale, 0)
  }
  // A settle call went out before: the chain says whether it moved the money.
  const answer = await askChain(deps, row)
  if (answer?.status === 'used') return settledOnChain(sale, row, answer.transaction)
  if (answer?.status === 'unused' && answer.final) return failed(sale, row, expiredRefusal)
  if (row.state !== 'unknown' && leaseLive) return pending(attempt.reference, 'busy', leaseLeft)
  // Not used yet: settling again is safe, the chain executes an authorization at most once.
  if (!(await deps.ledger.takeOver(row, deps.leaseSeconds)))
    return pending(attempt.reference, 'busy', 1)
  return settleAndDeliver(sale, row.settleAttempts)
}

const expiredRefusal = {
  reason: PaymentReason.expired,
  detail: 'the authorization expired unused: sign a new payment',
}

const settleAndDeliver = async (sale: Sale, previousAttempts: number): Promise<Response> => {
  const { deps, attempt, request, params } = sale
  const { ledger } = deps
  if (attempt.rail === 'x402') {
    const verified = await verifyX402(deps.x402!.facilitator, attempt)
    // Verification refused; nothing was sent to settle by this request.
    if (!verified.ok) return refusedOutcome(sale, verified, previousAttempts > 0)
  }
  if (!(await ledger.markSettling(attempt.reference, deps.leaseSeconds)))
    return pending(attempt.reference, 'busy', 1)
  const outcome =
    attempt.rail === 'x402'
      ? await settleX402(deps.x402!.facilitator, attempt)
      : await deps.mpp!.settle(request, params.price, params.resource, params.mppModes)
  return afterSettle(sale, outcome, previousAttempts + 1)
}

const afterSettle = async (
  sale: Sale,
  outcome: SettleOutcome,
  attempts: number,
): Promise<Response> => {
  const { deps, attempt, params } = sale
  if (outcome.kind === 'settled') {
    return deliverAndAnswer(sale, {
      rail: attempt.rail,
      ...(attempt.rail === 'x402' ? { version: attempt.version } : {}),
      network: attempt.rail === 'x402' ? attempt.requirement.network : attempt.network,
      payer: outcome.payer || attempt.payer,
      amount: params.price.amount.toString(),
      transaction: outcome.transaction,
      reference: attempt.reference,
      ...(outcome.header ? { header: outcome.header } : {}),
    })
  }
  // An x402 settle refusal, or an MPP refusal after an earlier lost answer, is checked on-chain.
  if (outcome.kind === 'refused')
    return refusedOutcome(sale, outcome, attempt.rail === 'x402' || attempts > 1)
  await deps.ledger.markUnknown(attempt.reference, outcome.detail)
  deps.logger?.warn(
    { reference: attempt.reference, detail: outcome.detail },
    'settle outcome unknown: asking the chain',
  )
  const row = (await deps.ledger.get(attempt.reference))!
  const answer = await askChain(deps, row)
  if (answer?.status === 'used') return settledOnChain(sale, row, answer.transaction)
  if (answer?.status === 'unused' && answer.final) return failed(sale, row, expiredRefusal)
  return pending(attempt.reference, 'unknown', retryAfterSeconds(deps))
}

const refusedOutcome = async (
  sale: Sale,
  refusal: { reason: PaymentReason; detail: string },
  settleWasSent: boolean,
) => {
  const { deps, attempt } = sale
  if (settleWasSent) {
    const row = (await deps.ledger.get(attempt.reference))!
    const answer = await askChain(deps, row)
    if (answer?.status === 'used') return settledOnChain(sale, row, answer.transaction)
    if (!answer) {
      await deps.ledger.markUnknown(attempt.reference, refusal.detail)
      return pending(attempt.reference, 'unknown', retryAfterSeconds(deps))
    }
  }
  const row = (await deps.ledger.get(attempt.reference))!
  return failed(sale, row, refusal)
}

const failed = async (
  sale: Sale,
  row: LedgerRow,
  refusal: { reason: PaymentReason; detail: string },
) => {
  const { deps, params, challenge } = sale
  const { product } = params
  await deps.ledger.fail(
    row.reference,
    `${refusal.reason}: ${refusal.detail}`,
    product.release && ((tx) => product.release!(tx, row.order ?? params.order, row.reference)),
  )
  return challenge.respond(refusal)
}

const settledOnChain = (sale: Sale, row: LedgerRow, transaction: string) =>
  deliverAndAnswer(sale, receiptFromChain(row, transaction))

/** Delivers (once) and answers; `settled` records the settlement in the same transaction. */
const deliverAndAnswer = async (sale: Sale, settled?: PaymentReceipt) => {
  const { deps, attempt, params } = sale
  const { product } = params
  if (settled) {
    const atOnce = await product.fulfilAtOnce?.(params.order, settled).catch(() => undefined)
    if (atOnce && (await deps.ledger.deliverAtOnce(attempt.reference, settled, atOnce))) {
      const response = await product.answer(atOnce.fulfilment, settled)
      return withHeaders(response, Object.fromEntries([receiptHeader(settled)]))
    }
  }
  const { fulfilment, row } = await deps.ledger.deliver(
    attempt.reference,
    (tx, paid) => product.fulfil(tx, paid.order ?? params.order, paid.receipt as PaymentReceipt),
    settled ? { settled } : {},
  )
  const receipt = row.receipt as PaymentReceipt
  const response = await product.answer(fulfilment, receipt)
  return withHeaders(response, Object.fromEntries([receiptHeader(receipt)]))
}

/** The chain's answer, or undefined when the chain cannot be asked (still unknown). */
const askChain = async (deps: PaymentsDeps, row: LedgerRow): Promise<ChainAnswer | undefined> => {
  try {
    return await deps.chain.read(row.proof as never, row.createdAt)
  } catch (error) {
    deps.logger?.warn(
      { reference: row.reference, err: error },
      'chain not reachable: payment stays unresolved',
    )
    return undefined
  }
}

/** The receipt of a settlement found on-chain (its settle answer was lost). */
export const receiptFromChain = (row: LedgerRow, transaction: string): PaymentReceipt => {
  const proof = row.proof as { version?: 1 | 2 }
  const receipt: PaymentReceipt = {
    rail: row.rail,
    ...(row.rail === 'x402' ? { version: proof.version ?? 2 } : {}),
    network: row.network,
    payer: row.payer,
    amount: row.amount.toString(),
    transaction,
    reference: row.reference,
  }
  // Fixed now (MPP's carries a timestamp), so every retry gets the same header.
  return { ...receipt, header: receiptHeader(receipt) }
}

/** The rail's receipt header for a receipt, the same on the first answer and on every retry. */
export const receiptHeader = (receipt: PaymentReceipt): [string, string] => {
  if (receipt.header) return receipt.header
  if (receipt.rail === 'mpp')
    return [
      PAYMENT_RECEIPT_HEADER,
      Receipt.serialize({
        method: 'tempo',
        status: 'success',
        reference: receipt.transaction,
        timestamp: new Date().toISOString(),
      }),
    ]
  return [
    receipt.version === 1 ? X_PAYMENT_RESPONSE_HEADER : PAYMENT_RESPONSE_HEADER,
    encodeBase64Json({
      success: true,
      transaction: receipt.transaction,
      network: receipt.network,
      payer: receipt.payer,
    }),
  ]
}

const readPayment = (
  deps: PaymentsDeps,
  request: Request,
  { price, mppModes }: { price: Price; mppModes?: MppModes | undefined },
  challenge: PaymentChallenge,
) => {
  const signature = request.headers.get(PAYMENT_SIGNATURE_HEADER)
  const legacy = request.headers.get(X_PAYMENT_HEADER)
  if ((signature || legacy) && deps.x402)
    return readX402Payment({
      header: (signature ?? legacy)!,
      version: signature ? 2 : 1,
      offered: challenge.offered,
      offeredV1: challenge.offeredV1,
    })
  if (request.headers.get('authorization')?.startsWith('Payment ') && deps.mpp)
    return deps.mpp.read(request, price, mppModes)
  return undefined
}

const retryAfterSeconds = (deps: PaymentsDeps) => Math.min(deps.leaseSeconds, 5)

/**
 * 503 with `Retry-After` and the payment reference: the payment is being
 * settled by another request (`busy`) or its outcome is not known yet
 * (`unknown`). Either way the payer retries with the same payment, never a new one.
 */
const pending = (reference: string, why: 'busy' | 'unknown', retryAfter: number) =>
  Response.json(
    {
      error:
        why === 'busy'
          ? 'this payment is being settled: retry with the same payment'
          : 'payment outcome not known yet: retry with the same payment, do not pay again',
      reference,
      retryAfterSeconds: retryAfter,
    },
    { status: 503, headers: { 'retry-after': String(retryAfter) } },
  )

/**
 * The product's answer with the receipt header, set in place: a copy would
 * turn a JSON body into a stream the server then pipes. Only an answer
 * with immutable headers (one passed on from `fetch`) is copied.
 */
const withHeaders = (response: Response, headers: Record<string, string>) => {
  try {
    for (const [name, value] of Object.entries(headers)) response.headers.set(name, value)
    return response
  } catch {
    const copy = new Response(response.body, response)
    for (const [name, value] of Object.entries(headers)) copy.headers.set(name, value)
    return copy
  }
}

import { createHash } from 'node:crypto'
import { carriesPayment, type PaymentReceipt, type Product, sellOnce } from '@agents/payments'
import type { AnyTransaction } from '@agents/service-kit/db'
import { PAID, spendOutbound } from '../budget/spend-outbound.ts'
import { chatMessages } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { holdingTier } from '../holdings/free-messages.ts'
import { creditBalance, creditUndelivered } from '../orders/credits.ts'
import { recordPaidOrder } from '../orders/record-paid-order.ts'
import { interviewTurn } from './drafts.ts'
import {
  answerAsMatchmaker,
  MATCHMAKER_CALLS,
  type MatchmakerAnswer,
  NO_MODEL_ANSWER,
} from './matchmaker-answer.ts'
import { storeExchange } from './messages.ts'
import { releaseMessage, reserveMessage, usedToday } from './usage.ts'

/** agent_ask: 0.10 USDC an answer. */
export const ASK_PRICE = { amount: 100_000n }
export const ASK_KIND = 'agent_ask'
export const ASK_PATH = '/api/chat/ask'

type AskOrder = { speaker: string; message: string }
export type AskFulfilment =
  | { answer: string; orderId: string }
  | { withheld: string; orderId: string }
  | { credited: number; orderId: string; error: string }

const UNDELIVERED = 'the matchmaker could not answer: the price was credited'

/** A paid answer (an agent's, or a human's past the free messages and credits). */
export const askProduct = (deps: VenueDeps): Product<AskOrder, AskFulfilment> => ({
  kind: ASK_KIND,
  fulfil: (tx, order, receipt) => answerPaid(deps, tx, order, receipt),
  answer: (fulfilment) =>
    'credited' in fulfilment
      ? Response.json(fulfilment, { status: 502 })
      : Response.json({ ok: true, paidWith: 'payment', ...fulfilment }),
})

const answerPaid = async (
  deps: VenueDeps,
  tx: AnyTransaction,
  order: AskOrder,
  receipt: PaymentReceipt,
): Promise<AskFulfilment> => {
  const orderId = await recordPaidOrder(tx, { kind: ASK_KIND, ownerId: null }, receipt)
  const answered = await answerAsMatchmaker({ safety: deps.safety, chat: deps.chat }, order.message)
  if (answered.kind === 'withheld') return { withheld: answered.reason, orderId }
  if (answered.kind === 'unavailable') {
    const { credits } = await creditUndelivered(tx, {
      wallet: receipt.payer,
      orderId,
      amountAtomic: BigInt(receipt.amount),
    })
    return { credited: credits, orderId, error: UNDELIVERED }
  }
  await tx.insert(chatMessages).values([
    { speaker: order.speaker, role: 'human', textSealed: deps.sealer.seal(order.message) },
    { speaker: order.speaker, role: 'matchmaker', textSealed: deps.sealer.seal(answered.text) },
  ])
  return { answer: answered.text, orderId }
}

/**
 * What can refuse a paid answer runs before the 402: the message itself
 * through the safety check (withheld: 422; the check down: 503), so nobody
 * pays for a message the matchmaker would not answer. Its outside calls are
 * spent first from the payers' budget (spent: 503, nothing charged): the
 * check's, and with a payment the answer's too (it is written after the
 * payment settles, when a 503 could no longer be given).
 */
const sellAnswer = async (deps: VenueDeps, request: Request, order: AskOrder) => {
  await spendOutbound(
    deps,
    PAID,
    carriesPayment(request)
      ? { ...MATCHMAKER_CALLS, moderation: MATCHMAKER_CALLS.moderation + 1 }
      : { moderation: 1 },
  )
  const verdict = await deps.safety(order.message, { kind: 'post' })
  if (verdict.unavailable)
    return Response.json(
      { error: 'safety check unavailable: nothing was charged; retry later' },
      { status: 503 },
    )
  if (verdict.verdict !== 'allow')
    return Response.json(
      {
        error: 'message withheld by the safety check: nothing was charged',
        reason: verdict.reason,
      },
      { status: 422 },
    )
  return sellAnswerChecked(deps, request, order)
}

const sellAnswerChecked = (deps: VenueDeps, request: Request, order: AskOrder) =>
  sellOnce(deps.payments, request, {
    price: ASK_PRICE,
    resource: {
      url: ASK_PATH,
      description: 'agent_ask: one answer of the matchmaker (0.10 USDC)',
      outputSchema: { answer: 'string', orderId: 'string' },
    },
    body: 'legacy-v1',
    product: askProduct(deps),
    order,
    requestKey: `ask:${order.speaker}:${createHash('sha256').update(order.message).digest('hex')}`,
  })

/**
 * An agent asks: every answer is paid (0.10 USDC). Without a chat model
 * there is no answer to sell: 503 before any 402.
 */
export const askAsAgent = async (
  deps: VenueDeps,
  { endpointId, message, request }: { endpointId: number; message: string; request: Request },
) =>
  deps.chat
    ? sellAnswer(deps, request, { speaker: `agent:${endpointId}`, message })
    : Response.json(
        { error: 'the matchmaker model is not configured on this venue' },
        { status: 503 },
      )

/** A paid answer to a human, with the wallet's credits beside it as on every other answer. */
const withCredits = async (deps: VenueDeps, wallet: string, response: Response) => {
  if (response.status !== 200) return response
  const body = (await response.json()) as Record<string, unknown>
  const headers = new Headers(response.headers)
  headers.delete('content-length')
  return Response.json(
    // Paid: no free message was left today.
    { ...body, freeLeft: 0, credits: await creditBalance(deps.database.db, wallet) },
    { status: 200, headers },
  )
}

export type HumanAskOutcome =
  | { kind: 'answered'; status: 200; body: Record<string, unknown> }
  | { kind: 'unavailable'; status: 503; body: { error: string; reason: string } }
  | { kind: 'paid'; response: Response }

/**
 * A signed-in adult asks: today's free messages by holding first, then
 * credits, then a 402 for 0.10 USDC. A message the venue could not answer
 * (model or safety check down) is given back; a withheld one counts.
 */
export const askAsHuman = async (
  deps: VenueDeps,
  {
    wallet,
    message,
    request,
    client,
    now = new Date(),
  }: { wallet: string; message: string; request: Request; client: string; now?: Date },
): Promise<HumanAskOutcome> => {
  // No model: the matchmaker does what it can offline, the interview (free).
  if (!deps.chat) {
    const turn = await interviewTurn(deps.database, wallet, message)
    await storeExchange(deps, wallet, message, turn.reply)
    return {
      kind: 'answered',
      status: 200,
      body: {
        ok: true,
        answer: `${turn.reply} ${NO_MODEL_ANSWER}`,
        paidWith: 'interview (free)',
        draft: turn.draft,
        // The interview spends no free message: what is left is what was.
        freeLeft: Math.max(
          0,
          holdingTier(await deps.holdings(wallet)).messages -
            (await usedToday(deps.database, wallet, now)),
        ),
        credits: await creditBalance(deps.database.db, wallet),
      },
    }
  }
  const tier = holdingTier(await deps.holdings(wallet))
  const reservation = await reserveMessage(deps.database, {
    wallet,
    freePerDay: tier.messages,
    now,
  })
  if (!reservation) {
    const response = await sellAnswer(deps, request, { speaker: wallet, message })
    return { kind: 'paid', response: await withCredits(deps, wallet, response) }
  }
  // A free message spends the client's budget, one paid with credits the payers'; a spent
  // budget (503) gives the message back.
  const spender = reservation.kind === 'free' ? { client } : PAID
  const answered: MatchmakerAnswer = await answerAsMatchmaker(
    {
      safety: deps.safety,
      chat: deps.chat,
      spend: () => spendOutbound(deps, spender, MATCHMAKER_CALLS),
    },
    message,
  ).catch(async (error: unknown) => {
    await releaseMessage(deps.database.db, wallet, reservation)
    throw error
  })
  if (answered.kind === 'unavailable') {
    await releaseMessage(deps.database.db, wallet, reservation)
    return {
      kind: 'unavailable',
      status: 503,
      body: {
        error: 'the matchmaker could not answer: nothing was counted; retry shortly',
        reason: answered.reason,
      },
    }
  }
  if (answered.kind === 'answer') await storeExchange(deps, wallet, message, answered.text)
  return {
    kind: 'answered',
    status: 200,
    body: {
      ok: true,
      ...(answered.kind === 'answer' ? { answer: answered.text } : { withheld: answered.reason }),
      paidWith: reservation.kind === 'free' ? 'free message' : 'credits',
      freeLeft: reservation.kind === 'free' ? Math.max(0, tier.messages - reservation.used) : 0,
      credits: reservation.balance,
    },
  }
}

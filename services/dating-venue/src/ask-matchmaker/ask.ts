import { createHash } from 'node:crypto'
import { carriesPayment, type SaleAnswer, type SaleOutcome, sellItem } from '@agents/payments'
import { isRefusal, type Refusal, refusal, type Spender } from '@agents/service-kit'
import { PAID, spendOutbound } from '../budget/spend-outbound.ts'
import type { VenueDeps } from '../deps.ts'
import { holdingTier } from '../holdings/free-messages.ts'
import { creditBalance } from '../orders/credits.ts'
import { type AskFulfilment, type AskOrder, askItem } from './ask-item.ts'
import { interviewTurn } from './drafts.ts'
import {
  answerAsMatchmaker,
  MATCHMAKER_CALLS,
  type MatchmakerAnswer,
  NO_MODEL_ANSWER,
} from './matchmaker-answer.ts'
import { storeExchange } from './messages.ts'
import { releaseMessage, reserveMessage, usedToday } from './usage.ts'

/** A paid answer, or why it was refused before the 402 (nothing charged). */
export type PaidAsk = Refusal<422 | 503> | { ok: true; outcome: SaleOutcome<AskFulfilment> }

/**
 * What can refuse a paid answer runs before the 402: the message itself
 * through the safety check (withheld: 422; the check down: 503), so nobody
 * pays for a message the matchmaker would not answer. Its outside calls are
 * spent first from the payers' budget (spent: 503, nothing charged): the
 * check's, and with a payment the answer's too (it is written after the
 * payment settles, when a 503 could no longer be given).
 */
const sellAnswer = async (deps: VenueDeps, request: Request, order: AskOrder): Promise<PaidAsk> => {
  const spent = await spendOutbound(
    deps,
    PAID,
    carriesPayment(request)
      ? { ...MATCHMAKER_CALLS, moderation: MATCHMAKER_CALLS.moderation + 1 }
      : { moderation: 1 },
  )
  if (spent) return spent
  const verdict = await deps.safety(order.message, { kind: 'post' })
  if (verdict.unavailable)
    return refusal(503, 'safety check unavailable: nothing was charged; retry later')
  if (verdict.verdict !== 'allow')
    return refusal(422, 'message withheld by the safety check: nothing was charged', {
      reason: verdict.reason,
    })
  const outcome = await sellItem(deps, request, askItem, {
    order,
    requestKey: `ask:${order.speaker}:${createHash('sha256').update(order.message).digest('hex')}`,
  })
  return { ok: true, outcome }
}

/**
 * An agent asks: every answer is paid (`askItem`). Without a chat model
 * there is no answer to sell: 503 before any 402.
 */
export const askAsAgent = async (
  deps: VenueDeps,
  { endpointId, message, request }: { endpointId: number; message: string; request: Request },
): Promise<PaidAsk> =>
  deps.chat
    ? sellAnswer(deps, request, { speaker: `agent:${endpointId}`, message })
    : refusal(503, 'the matchmaker model is not configured on this venue')

/**
 * How a paid answer is answered: 502 when it was credited; else the answer,
 * and for a human (`wallet`) with the wallet's credits beside it as on
 * every other answer (paid: no free message was left today).
 */
export const paidAskAnswer =
  (deps: Pick<VenueDeps, 'database'>, wallet?: string) =>
  async (fulfilment: AskFulfilment): Promise<SaleAnswer> => {
    if ('credited' in fulfilment) return { status: 502, body: fulfilment }
    const body = { ok: true, paidWith: 'payment', ...fulfilment }
    if (wallet === undefined) return { status: 200, body }
    return {
      status: 200,
      body: { ...body, freeLeft: 0, credits: await creditBalance(deps.database.db, wallet) },
    }
  }

/** An unpaid answer's calls spent, then the answer: a spent budget is its 503, no call made. */
const spendAndAnswer = async (
  deps: VenueDeps,
  spender: Spender,
  message: string,
): Promise<MatchmakerAnswer | Refusal<503>> =>
  (await spendOutbound(deps, spender, MATCHMAKER_CALLS)) ??
  answerAsMatchmaker({ safety: deps.safety, chat: deps.chat }, message)

export type HumanAskOutcome =
  | { ok: true; kind: 'answered'; body: Record<string, unknown> }
  | { ok: true; kind: 'paid'; paid: PaidAsk }
  | Refusal<503>

/**
 * A signed-in adult asks: today's free messages by holding first, then
 * credits, then the 402 of `askItem`. A message the venue could not answer
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
      ok: true,
      kind: 'answered',
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
    return {
      ok: true,
      kind: 'paid',
      paid: await sellAnswer(deps, request, { speaker: wallet, message }),
    }
  }
  // A free message spends the client's budget, one paid with credits the payers', before any
  // call is made; a spent budget (503) gives the message back, as does any failure.
  const spender = reservation.kind === 'free' ? { client } : PAID
  const answered = await spendAndAnswer(deps, spender, message).catch(async (error: unknown) => {
    await releaseMessage(deps.database.db, wallet, reservation)
    throw error
  })
  if (isRefusal(answered)) {
    await releaseMessage(deps.database.db, wallet, reservation)
    return answered
  }
  if (answered.kind === 'unavailable') {
    await releaseMessage(deps.database.db, wallet, reservation)
    return refusal(503, 'the matchmaker could not answer: nothing was counted; retry shortly', {
      reason: answered.reason,
    })
  }
  if (answered.kind === 'answer') await storeExchange(deps, wallet, message, answered.text)
  return {
    ok: true,
    kind: 'answered',
    body: {
      ok: true,
      ...(answered.kind === 'answer' ? { answer: answered.text } : { withheld: answered.reason }),
      paidWith: reservation.kind === 'free' ? 'free message' : 'credits',
      freeLeft: reservation.kind === 'free' ? Math.max(0, tier.messages - reservation.used) : 0,
      credits: reservation.balance,
    },
  }
}

import { isRefusal, type Refusal, refusalResponse } from '@agents/service-kit'
import type { SaleAnswer } from './sale-answer.ts'
import type { SaleOutcome } from './sale-outcome.ts'
import type { PaymentReceipt } from './types.ts'

export type SaleResponseOptions<fulfilment> = {
  /** How the route answers a delivery (the receipt header is added); `200` with the fulfilment by default. */
  answer?: (
    fulfilment: fulfilment,
    receipt: PaymentReceipt,
  ) => SaleAnswer | Refusal | Response | Promise<SaleAnswer | Refusal | Response>
}

const PENDING_ERRORS = {
  busy: 'this payment is being settled: retry with the same payment',
  unknown: 'payment outcome not known yet: retry with the same payment, do not pay again',
} as const

/**
 * The one place a sale becomes HTTP: the 402 of every rail (`challenge`,
 * `refused` with its reason), the product's or payer check's own refusal,
 * 503 with `Retry-After` and the reference (`pending`), and the route's
 * answer to a delivery with the rail's receipt header.
 *
 * @example
 * return saleResponse(await sell(deps.payments, c.req.raw, params), {
 *   answer: (report, receipt) => ({ status: 200, body: { ...report, receiptId: receipt.reference } }),
 * })
 */
export const saleResponse = async <fulfilment>(
  outcome: SaleOutcome<fulfilment>,
  {
    answer = (fulfilment) => ({ status: 200, body: fulfilment }),
  }: SaleResponseOptions<fulfilment> = {},
): Promise<Response> => {
  switch (outcome.type) {
    case 'challenge':
      return outcome.challenge.respond()
    case 'refused':
      return outcome.challenge.respond({ reason: outcome.reason, detail: outcome.detail })
    case 'payer-refused':
      return refusalResponse(outcome.refusal)
    case 'hold-refused':
      return saleAnswerResponse(outcome.refusal)
    case 'pending':
      return Response.json(
        {
          error: PENDING_ERRORS[outcome.why],
          reference: outcome.reference,
          retryAfterSeconds: outcome.retryAfter,
        },
        { status: 503, headers: { 'retry-after': String(outcome.retryAfter) } },
      )
    case 'delivered': {
      const answered = await answer(outcome.fulfilment, outcome.receipt)
      const response = answered instanceof Response ? answered : saleAnswerResponse(answered)
      return withHeader(response, outcome.receiptHeader)
    }
    default:
      throw new Error(`no response for sale outcome ${(outcome as { type: string }).type}`)
  }
}

/** A route's answer given as data (a refusal included), as a `Response`. */
export const saleAnswerResponse = (answer: SaleAnswer | Refusal) => {
  if (isRefusal(answer)) return refusalResponse(answer)
  const { status, body, headers } = answer
  return Response.json(body, { status, ...(headers ? { headers } : {}) })
}

/**
 * The answer with the receipt header, set in place: a copy would turn a
 * JSON body into a stream the server then pipes. Only an answer with
 * immutable headers (one passed on from `fetch`) is copied.
 */
const withHeader = (response: Response, [name, value]: [string, string]) => {
  try {
    response.headers.set(name, value)
    return response
  } catch {
    const copy = new Response(response.body, response)
    copy.headers.set(name, value)
    return copy
  }
}

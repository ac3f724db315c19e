import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { ApiError, type ErrorExtras, errorBody } from './errors.ts'

/**
 * An expected "no", returned as data by a logic function (a payer check, a
 * product's hold, an operation): the route answers it as
 * `{ error, ...extras }` with its status and any headers (`Retry-After`,
 * `RateLimit`). A bug is thrown, never returned: it is the error boundary's
 * 500. Built only by `refusal` (scripts/check-refusal-literals.ts).
 */
export type Refusal<status extends ContentfulStatusCode = ContentfulStatusCode> = {
  readonly ok: false
  readonly status: status
  readonly error: string
  readonly extras?: ErrorExtras
  readonly headers?: Record<string, string>
}

/**
 * A refusal with its status, message, any extra fields of the answer and any headers.
 *
 * @example return refusal(409, 'match already paid', { match: `/v1/matches/${id}` })
 */
export const refusal = <status extends ContentfulStatusCode>(
  status: status,
  error: string,
  extras?: ErrorExtras,
  headers?: Record<string, string>,
): Refusal<status> => ({
  ok: false,
  status,
  error,
  ...(extras ? { extras } : {}),
  ...(headers ? { headers } : {}),
})

/**
 * Carries a refusal out of a transaction so that it rolls back; `returnRefusal`
 * turns it back into data.
 */
export class Refused extends Error {
  override readonly name = 'Refused'
  readonly refusal: Refusal
  constructor(refusal: Refusal) {
    super(refusal.error)
    this.refusal = refusal
  }
}

/** Runs `work`; a `Refused` thrown inside it (a rolled-back transaction) comes back as its refusal. */
export const returnRefusal = async <value>(
  work: () => Promise<value>,
): Promise<value | Refusal> => {
  try {
    return await work()
  } catch (error) {
    if (error instanceof Refused) return error.refusal
    throw error
  }
}

/**
 * An `ApiError` built elsewhere (a limit's 429, with its message, fields and
 * headers) as a refusal to return instead of throw.
 */
export const refusalOf = (error: ApiError): Refusal =>
  refusal(error.status, error.message, error.extras, error.headers)

/** Whether a logic function's outcome is a refusal. */
export const isRefusal = (outcome: unknown): outcome is Refusal =>
  typeof outcome === 'object' &&
  outcome !== null &&
  (outcome as { ok?: unknown }).ok === false &&
  typeof (outcome as { status?: unknown }).status === 'number' &&
  typeof (outcome as { error?: unknown }).error === 'string'

/** The JSON body a refusal is answered with: `{ ...extras, error }`, as an `ApiError`'s. */
export const refusalBody = ({ error, extras }: Refusal) => errorBody(error, extras)

/** A refusal as a `Response` (for a route that answers a `Response`, such as a sale's). */
export const refusalResponse = (refused: Refusal) =>
  Response.json(refusalBody(refused), {
    status: refused.status,
    ...(refused.headers ? { headers: refused.headers } : {}),
  })

/**
 * What a route answers for a logic function's outcome: the value when it is
 * not a refusal, else the refusal as an `ApiError` (the app's error handler
 * and the MCP tools write `{ error, ...extras }` with its status and headers).
 *
 * @example return c.json(answerOf(await withdraw(deps, input)))
 */
export const answerOf = <value>(outcome: value | Refusal): Exclude<value, Refusal> => {
  if (isRefusal(outcome))
    throw new ApiError(outcome.status, outcome.error, outcome.extras ?? {}, outcome.headers ?? {})
  return outcome as Exclude<value, Refusal>
}

import { ApiError, type ErrorExtras } from '@agents/service-kit'
import type { ContentfulStatusCode } from 'hono/utils/http-status'

/** An expected refusal, returned as data by a logic function: the route answers it as `{ error, ...extras }`. */
export type Refusal<status extends ContentfulStatusCode = ContentfulStatusCode> = {
  ok: false
  status: status
  error: string
  extras?: ErrorExtras
}

/** A refusal with its status, message and any extra fields of the answer. */
export const refusal = <status extends ContentfulStatusCode>(
  status: status,
  error: string,
  extras?: ErrorExtras,
): Refusal<status> => ({ ok: false, status, error, ...(extras ? { extras } : {}) })

/**
 * Carries a refusal out of a transaction so that it rolls back; `returnRefusal`
 * turns it back into data.
 */
export class Refused extends Error {
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

/** Whether a logic function's outcome is a refusal. */
export const isRefusal = (outcome: unknown): outcome is Refusal =>
  typeof outcome === 'object' &&
  outcome !== null &&
  'ok' in outcome &&
  outcome.ok === false &&
  'error' in outcome

/**
 * What a route answers for a logic function's outcome: the value when it is
 * not a refusal, else the refusal as an `ApiError` (the app's error handler
 * writes `{ error, ...extras }` with its status).
 */
export const answerOf = <value>(outcome: value | Refusal): Exclude<value, Refusal> => {
  if (isRefusal(outcome)) throw new ApiError(outcome.status, outcome.error, outcome.extras ?? {})
  return outcome as Exclude<value, Refusal>
}

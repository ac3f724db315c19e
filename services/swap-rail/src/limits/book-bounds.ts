import { ApiError, limitHeaders } from '@agents/service-kit'

/**
 * How much of the book one seller or client may hold at once; `undefined`:
 * no bound. Counted in the database under an advisory lock, in the
 * transaction that adds the row, so replicas and concurrent requests agree.
 */
export type BookBounds = {
  /** Open offers of one payTo. */
  offersPerSeller?: number | undefined
  /** Open offers posted by one client (address group), whatever their payTo. */
  offersPerClient?: number | undefined
  /** Intents of one client waiting, or matched and unpaid. */
  intentsPerClient?: number | undefined
  /** Told of each refusal (the `rate_limited_total` metric). */
  onFull?: ((name: BookBoundName) => void) | undefined
}

export type BookBoundName = 'open-offers-per-seller' | 'open-offers-per-client' | 'open-intents'

/** A refused addition: which bound, its size, and when the first counted row ends by itself. */
export type BookRefusal = { bound: BookBoundName; max: number; retryAfter: number }

const WHAT: Record<BookBoundName, string> = {
  'open-offers-per-seller': 'open offers for this payTo',
  'open-offers-per-client': 'open offers posted from this address',
  'open-intents': 'intents waiting or awaiting payment for this client',
}
const FREE_ONE: Record<BookBoundName, string> = {
  'open-offers-per-seller': 'cancel one, or retry',
  'open-offers-per-client': 'cancel one, or retry',
  'open-intents': 'pay or let one lapse, or retry',
}

/**
 * The 429 of a full bound, shaped like a request limit's (`{ error, limit,
 * retryAfter }`, Retry-After and the RateLimit fields): `Retry-After` is
 * the time until the soonest counted row ends by itself (an offer or intent
 * expiring, a match's payment window closing); cancelling frees a place at once.
 */
export class BookFull extends ApiError {
  constructor({ bound, max, retryAfter }: BookRefusal, lifetimeSeconds: number) {
    super(
      429,
      `too many ${WHAT[bound]}: at most ${max} at once; ${FREE_ONE[bound]} in ${retryAfter} s`,
      { limit: bound, retryAfter },
      limitHeaders({
        allowed: false,
        name: bound,
        policy: { points: max, windowSeconds: lifetimeSeconds },
        remaining: 0,
        resetSeconds: retryAfter,
      }),
    )
  }
}

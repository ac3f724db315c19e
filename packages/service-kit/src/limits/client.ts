import type { LimitDecision } from './limits.ts'

/**
 * Who a request counts for: its credential, wallet session or agent when it
 * carries one, else its address group (`clientGroup`). `credential` says the
 * key came from something the request presented, which the route has not
 * checked yet (see `credentialFailures` in `limitRequests`).
 */
export type Client = { key: string; address: string; credential: boolean }

/** Counts units of a named limit for this request's client (routes with costs of their own: a newly mined salt). */
export type TakeLimit = (name: string, cost?: number) => Promise<LimitDecision>

import type { Refusal } from '@agents/service-kit'

/** A route's answer as data: the status, the JSON body, any headers. */
export type SaleAnswer = { status: number; body: unknown; headers?: Record<string, string> }

/**
 * What a product's hold answers instead of a sale, before any money moves:
 * a refusal, or the answer an earlier payment already bought (the venue's
 * report, paid for today, answered again free).
 */
export type HoldAnswer = Refusal | SaleAnswer

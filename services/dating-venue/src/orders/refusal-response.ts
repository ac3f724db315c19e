import type { ProductRefusal } from '@agents/payments'

/**
 * A refusal given as data (a product's, or a paid route's own before its
 * sale) as the route's answer: its status, JSON body and headers, as
 * `saleResponse` answers a product's refusal.
 */
export const refusalResponse = ({ status, body, headers }: ProductRefusal) =>
  Response.json(body, { status, ...(headers ? { headers } : {}) })

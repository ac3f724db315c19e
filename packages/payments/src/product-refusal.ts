/**
 * A product's own refusal (or a payer check's), as data: the route answers
 * it as is (`status`, the JSON `body`, any `headers`). Returned before any
 * money moves.
 */
export type ProductRefusal = {
  status: number
  body: unknown
  headers?: Record<string, string>
}

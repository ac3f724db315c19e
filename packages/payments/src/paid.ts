import type { Context, MiddlewareHandler } from 'hono'
import { type ChargeParameters, charge, type PaymentsDeps } from './charge.ts'
import type { PaymentReceipt, Price, Resource } from './types.ts'

/** What `paid` sets on the context for the route behind it. */
export type PayerVariables = { payment: PaymentReceipt }

export type PaidOptions = {
  /** Fixed, or computed per request (the swap rail prices each match). */
  price: Price | ((c: Context) => Price | Promise<Price>)
  /** Defaults to the request path and `description`. */
  resource?: (c: Context) => Resource
  description?: string
  body?: ChargeParameters['body']
}

/**
 * Hono middleware: the route behind it runs only once a payment for it has
 * been verified and settled; its response then carries the rail's receipt
 * header. Without payment: the 402 challenge.
 *
 * @example app.post('/report', paid(payments, { price: { amount: 5_000_000n }, body: 'legacy-v1' }), handler)
 */
export const paid = (
  deps: PaymentsDeps,
  { price, resource, description = '', body = 'minimal' }: PaidOptions,
): MiddlewareHandler<{ Variables: PayerVariables }> =>
  async function paidRoute(c, next) {
    const result = await charge(deps, c.req.raw, {
      price: typeof price === 'function' ? await price(c) : price,
      resource: resource ? resource(c) : { url: c.req.path, description },
      body,
    })
    if (!result.paid) return result.response
    c.set('payment', result.receipt)
    await next()
    c.res = result.withReceipt(c.res)
  }

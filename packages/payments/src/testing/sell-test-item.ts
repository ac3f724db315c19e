import { type PaymentsDeps, type Product, sellOnce } from '../sell-once.ts'
import type { Price } from '../types.ts'
import { type TestFulfilment, type TestOrder, testProduct } from './test-shop.ts'

export type SellTestItemParameters = {
  price: Price
  description: string
  /** The 402 body, as `sellOnce` takes it. */
  body?: 'legacy-v1' | 'minimal'
  product?: Product<TestOrder, TestFulfilment>
}

/**
 * The request key of a test shop sale: the path and the item bought. The same
 * payment for another item (or on another path) is another request.
 */
export const testItemRequestKey = (path: string, item: string) => `${path}#${item}`

/**
 * What a paid route of a service does, reduced to the test shop: the JSON body's
 * `item` (or, without one, the path) is what is bought, one delivery row per
 * payment through `sellOnce`.
 *
 * @example
 * app.post('/report', (c) => sellTestItem(deps, c.req.raw, { price, description: 'report' }))
 */
export const sellTestItem = async (
  deps: PaymentsDeps,
  request: Request,
  { price, description, body, product = testProduct() }: SellTestItemParameters,
): Promise<Response> => {
  const path = new URL(request.url).pathname
  const sent = (await request
    .clone()
    .json()
    .catch(() => undefined)) as { item?: unknown } | undefined
  const item = typeof sent?.item === 'string' ? sent.item : path
  return sellOnce(deps, request, {
    price,
    resource: { url: path, description },
    ...(body ? { body } : {}),
    product,
    order: { item },
    requestKey: testItemRequestKey(path, item),
  })
}

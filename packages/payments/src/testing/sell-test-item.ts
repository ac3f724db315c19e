import { definePaidItem, type PaidItemDeps } from '../paid-item/define-paid-item.ts'
import { sellItem } from '../paid-item/sell-item.ts'
import type { PaymentsDeps } from '../payments-deps.ts'
import { resourceUrl } from '../resource-url.ts'
import type { SaleProduct } from '../sale-product.ts'
import { saleResponse } from '../sale-response.ts'
import type { Price } from '../types.ts'
import { type TestFulfilment, type TestOrder, testAnswer, testProduct } from './test-shop.ts'

/**
 * The test shop's paid item, declared as a service declares its own: one
 * `test_deliveries` row per payment, priced by each route that sells it.
 * `product` and `body` make a variant (another kind, a failing delivery, the
 * legacy v1 402).
 */
export const testItem = ({
  product = testProduct(),
  body = 'minimal',
}: {
  product?: SaleProduct<TestOrder, TestFulfilment>
  body?: 'legacy-v1' | 'minimal'
} = {}) =>
  definePaidItem({
    kind: product.kind,
    method: 'post',
    path: '/report',
    body,
    what: 'one test delivery row',
    description: 'a test item',
    product: (_deps: PaidItemDeps) => product,
  })

/** The test shop's base URL when its server names none: its 402s' resources are on it. */
export const TEST_SHOP_BASE_URL = 'http://shop.test'

/** The package's reference item (`test_item`). */
export const TEST_ITEM = testItem()

export type SellTestItemParameters = {
  price: Price
  description: string
  /** The 402 body, as `sell` takes it. */
  body?: 'legacy-v1' | 'minimal'
  product?: SaleProduct<TestOrder, TestFulfilment>
  /** The shop's base URL, as a service's configuration gives it (default {@link TEST_SHOP_BASE_URL}). */
  baseUrl?: string
}

/**
 * The request key of a test shop sale: the path and the item bought. The same
 * payment for another item (or on another path) is another request.
 */
export const testItemRequestKey = (path: string, item: string) => `${path}#${item}`

/**
 * What a paid route of a service does, reduced to the test shop: the JSON body's
 * `item` (or, without one, the path) is what is bought, one delivery row per
 * payment through `sellItem`, answered by `saleResponse`.
 *
 * @example
 * app.post('/report', (c) => sellTestItem(deps, c.req.raw, { price, description: 'report' }))
 */
export const sellTestItem = async (
  deps: PaymentsDeps,
  request: Request,
  { price, description, body, product, baseUrl = TEST_SHOP_BASE_URL }: SellTestItemParameters,
): Promise<Response> => {
  // The route's path only: the 402 names it on the shop's base URL, not on the request's Host.
  const path = new URL(request.url).pathname
  const sent = (await request
    .clone()
    .json()
    .catch(() => undefined)) as { item?: unknown } | undefined
  const item = typeof sent?.item === 'string' ? sent.item : path
  const paidItem =
    product || body
      ? testItem({ ...(product ? { product } : {}), ...(body ? { body } : {}) })
      : TEST_ITEM
  const outcome = await sellItem({ payments: deps, baseUrl: () => baseUrl }, request, paidItem, {
    price,
    resource: { url: resourceUrl(baseUrl, path), description },
    order: { item },
    requestKey: testItemRequestKey(path, item),
  })
  return saleResponse(outcome, { answer: testAnswer })
}

import { PaidItemsError } from '../errors.ts'
import { resourceUrl } from '../resource-url.ts'
import type { SaleTerms } from '../sale-product.ts'
import type { Price, Resource } from '../types.ts'
import type { AnyPaidItem } from './define-paid-item.ts'

export type SaleTermsOverrides = {
  /** This request's price, for an item priced per request (or to override its own). */
  price?: Price
  /**
   * This request's resource: `url` absolute (`resourceUrl(deps.baseUrl(), path)`,
   * the concrete path of a path with parameters), `description`.
   */
  resource?: Partial<Resource>
}

/**
 * What an item charges and how its 402 reads: what `verifyAhead` and the
 * challenge need, from the item's declaration and this request's overrides.
 * The resource is the item's path on `baseUrl` (the service's configured base
 * URL, never the request's `Host`) unless the overrides name another.
 *
 * @example
 * app.use(item.path, (c, next) => (verifyAhead(deps.payments, c.req.raw, saleTermsOf(item, { baseUrl: deps.baseUrl() })), next()))
 */
export const saleTermsOf = (
  item: AnyPaidItem,
  { baseUrl, price = item.price, resource }: SaleTermsOverrides & { baseUrl: string },
): SaleTerms => {
  if (!price)
    throw new PaidItemsError([`${item.kind} (${item.path}): no price, and the sale gave none`])
  return {
    price,
    resource: {
      url: resource?.url ?? resourceUrl(baseUrl, item.path),
      description: item.description,
      ...(item.outputSchema ? { outputSchema: item.outputSchema } : {}),
      ...resource,
    },
    body: item.body,
    ...(item.mppModes ? { mppModes: item.mppModes } : {}),
  }
}

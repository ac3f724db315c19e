import { PaidItemsError } from '../errors.ts'
import type { MppModes } from '../mpp/create-mpp-adapter.ts'
import type { PaymentsDeps } from '../payments-deps.ts'
import type { SaleProduct } from '../sale-product.ts'
import type { Price } from '../types.ts'

/** What a service's deps must carry for its paid items to be sold. */
export type PaidItemDeps = {
  payments: PaymentsDeps
  /**
   * The service's public base URL (`BASE_URL`, else the address it listens on):
   * a 402 names its resource on it, never on the request's `Host`.
   */
  baseUrl: () => string
}

/** A paid item as its service declares it (see `definePaidItem`). */
export type PaidItemDefinition<deps extends PaidItemDeps, order, fulfilment> = {
  /** The ledger's name for what is sold; the reconciler finds the product by it. */
  kind: string
  /**
   * What buyers and documents call the item, when it is not the ledger's kind
   * (the venue's chat-page doc is `doc_submit` to its buyers, `doc_submit_chat`
   * in the ledger, so the reconciler delivers it as that route does).
   */
  name?: string
  method: 'get' | 'post' | 'put' | 'patch' | 'delete'
  /**
   * The route, as documented (`/v1/matches/{id}/pay`): a path, which the 402
   * names on the service's base URL unless the sale names another resource.
   */
  path: string
  /** What one request costs; absent when each request is priced (`sellItem`'s `price`). */
  price?: Price
  /** The 402 body: the venue's legacy v1 challenge, or `{ error }` only. */
  body: 'legacy-v1' | 'minimal'
  /** What is sold, in a few words, for documents (`llms.txt`, OpenAPI's `x-payment-info`). */
  what: string
  /** The 402 resource's description. */
  description: string
  /** Legacy v1 only: what the paid answer looks like. */
  outputSchema?: Record<string, unknown>
  /** How MPP may pay this route (e.g. `['pull']`); the adapter's default (push) when absent. */
  mppModes?: MppModes
  /** The product's hooks, built from the service's deps; its `kind` is the item's. */
  product: (deps: deps) => Omit<SaleProduct<order, fulfilment>, 'kind'>
}

/** A declared paid item: frozen; its `product` carries the item's kind, `hooks` is as declared. */
export type PaidItem<deps extends PaidItemDeps, order, fulfilment> = Readonly<
  Omit<PaidItemDefinition<deps, order, fulfilment>, 'product'> & {
    product: (deps: deps) => SaleProduct<order, fulfilment>
    hooks: PaidItemDefinition<deps, order, fulfilment>['product']
  }
>

// biome-ignore lint/suspicious/noExplicitAny: a list of items of any order and fulfilment
export type AnyPaidItem<deps extends PaidItemDeps = any> = PaidItem<deps, any, any>

/**
 * Declares one paid item once: its kind, route, price, what it sells and
 * its product's hooks. That one declaration feeds its route (`sellItem`),
 * the reconciler (`productsOf`), the documents and the tests; a service
 * keeps its items in ONE `PAID_ITEMS` list.
 *
 * One item per route: a kind sold on two routes (the venue's `doc_submit`)
 * is two items with the same `kind` and the same `product` function, which
 * `productsOf` checks (two different products under one kind throw at start).
 *
 * @example
 * export const matchItem = definePaidItem({
 *   kind: 'swap_match', method: 'post', path: '/v1/matches/{id}/pay', body: 'minimal',
 *   what: 'a match paid, with its grant', description: 'Pay a match',
 *   product: (deps: SwapDeps) => matchHooks(deps),
 * })
 */
export const definePaidItem = <deps extends PaidItemDeps, order, fulfilment>(
  definition: PaidItemDefinition<deps, order, fulfilment>,
): PaidItem<deps, order, fulfilment> => {
  // A path, put on the base URL at sale time: a full URL here would be a host nobody configured.
  if (!definition.path.startsWith('/'))
    throw new PaidItemsError([
      `${definition.kind}: path ${JSON.stringify(definition.path)} is not a path (the 402 names it on the service's base URL)`,
    ])
  const hooks = definition.product
  const product = (deps: deps): SaleProduct<order, fulfilment> => ({
    ...hooks(deps),
    kind: definition.kind,
  })
  return Object.freeze({ ...definition, product, hooks })
}

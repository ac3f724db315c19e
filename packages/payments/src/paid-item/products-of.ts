import { PaidItemsError } from '../errors.ts'
import type { SaleProduct } from '../sale-product.ts'
import type { AnyPaidItem, PaidItemDeps } from './define-paid-item.ts'

/**
 * The reconciler's products, one per kind, from a service's `PAID_ITEMS`.
 * Throws at start, naming every problem, when two items share a route or
 * two different products claim one kind.
 *
 * @example
 * startReconciler(deps.payments, productsOf(PAID_ITEMS, deps), { intervalMs, exclusive })
 */
export const productsOf = <deps extends PaidItemDeps>(
  items: readonly AnyPaidItem<deps>[],
  deps: deps,
  // biome-ignore lint/suspicious/noExplicitAny: products of any order and fulfilment
): SaleProduct<any, any>[] => {
  const problems: string[] = []
  const routes = new Set<string>()
  const byKind = new Map<string, AnyPaidItem<deps>>()
  for (const item of items) {
    const route = `${item.method.toUpperCase()} ${item.path}`
    if (routes.has(route)) problems.push(`${route}: declared twice`)
    routes.add(route)
    const first = byKind.get(item.kind)
    if (!first) byKind.set(item.kind, item)
    // One kind on two routes is one product: the same hooks, declared once and shared.
    else if (first.hooks !== item.hooks)
      problems.push(`${item.kind}: two different products (${first.path}, ${item.path})`)
  }
  if (problems.length > 0) throw new PaidItemsError(problems)
  return [...byKind.values()].map((item) => item.product(deps))
}

/**
 * The kinds (found in the ledger, or anywhere) that no item declares: what
 * the reconciler could not deliver. Tests assert it is empty.
 *
 * @example
 * expect(kindsWithoutItem(PAID_ITEMS, await ledgerKinds())).toEqual([])
 */
export const kindsWithoutItem = (items: readonly AnyPaidItem[], kinds: Iterable<string>) => {
  const declared = new Set(items.map((item) => item.kind))
  return [...new Set(kinds)].filter((kind) => !declared.has(kind))
}

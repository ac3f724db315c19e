import { describe, expect, test } from 'vitest'
import { PaidItemsError } from '../errors.ts'
import type { PaymentsDeps } from '../payments-deps.ts'
import { definePaidItem } from './define-paid-item.ts'
import { kindsWithoutItem, productsOf } from './products-of.ts'
import { saleTermsOf } from './sale-terms-of.ts'

type Deps = { payments: PaymentsDeps; baseUrl: () => string; name: string }
const deps = { payments: {} as PaymentsDeps, baseUrl: () => 'https://shop.example', name: 'shop' }
const docHooks = (shop: Deps) => ({
  fulfil: async (_tx: unknown, order: { doc: string }) => ({ doc: order.doc, shop: shop.name }),
})
const item = (path: string, kind = 'doc_submit', product = docHooks) =>
  definePaidItem({
    kind,
    method: 'post',
    path,
    price: { amount: 1_000_000n },
    body: 'legacy-v1',
    what: 'a document submitted',
    description: 'Submit a document',
    product,
  })

describe('paid items', () => {
  test('behavior: an item is frozen and its product carries the item kind', async () => {
    const declared = item('/api/submit-doc')
    expect(Object.isFrozen(declared)).toBe(true)
    const product = declared.product(deps)
    expect(product.kind).toBe('doc_submit')
    expect(await product.fulfil({} as never, { doc: 'x' }, {} as never)).toEqual({
      doc: 'x',
      shop: 'shop',
    })
  })

  test('behavior: one kind on two routes is one product for the reconciler', () => {
    const products = productsOf([item('/api/submit-doc'), item('/chat/submit-doc')], deps)
    expect(products.map((product) => product.kind)).toEqual(['doc_submit'])
  })

  test('errors: two different products under one kind, or one route twice, throw at start naming each', () => {
    const other = (shop: Deps) => docHooks(shop)
    expect(() =>
      productsOf([item('/a'), item('/b', 'doc_submit', other), item('/a', 'report')], deps),
    ).toThrowErrorMatchingInlineSnapshot(`
      [PaidItemsError: invalid paid items:
        doc_submit: two different products (/a, /b)
        POST /a: declared twice]
    `)
  })

  test('behavior: the kinds no item declares are named', () => {
    expect(kindsWithoutItem([item('/a')], ['doc_submit', 'swap_match', 'swap_match'])).toEqual([
      'swap_match',
    ])
  })

  test('behavior: sale terms from the declaration, with the request overrides', () => {
    expect(
      saleTermsOf(item('/a'), {
        baseUrl: 'https://shop.example',
        resource: { url: 'https://shop.example/a/7' },
      }),
    ).toEqual({
      price: { amount: 1_000_000n },
      resource: { url: 'https://shop.example/a/7', description: 'Submit a document' },
      body: 'legacy-v1',
    })
  })

  test("behavior: the resource is the item's path on the base URL given, whatever else", () => {
    expect(saleTermsOf(item('/a'), { baseUrl: 'https://shop.example/' }).resource.url).toBe(
      'https://shop.example/a',
    )
  })

  test('errors: an item whose path is not a path is refused at its declaration', () => {
    expect(() => item('https://shop.example/a')).toThrowErrorMatchingInlineSnapshot(`
      [PaidItemsError: invalid paid items:
        doc_submit: path "https://shop.example/a" is not a path (the 402 names it on the service's base URL)]
    `)
    expect(() => item('a')).toThrow(PaidItemsError)
  })
})

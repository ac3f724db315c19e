import { afterAll, beforeAll, describe } from 'vitest'
import type { LedgerDatabase } from '../ledger/ledger.ts'
import type { PaymentsDeps } from '../payments-deps.ts'
import { paymentsFromEnv } from '../payments-from-env.ts'
import { paidItemContract } from './paid-item-contract.ts'
import { TEST_ITEM } from './sell-test-item.ts'
import { openTestShopDatabase, testAnswer } from './test-shop.ts'
import { UNUSED_PAYMENTS_ENV } from './unused-payments-env.ts'

// The contract on the package's reference item: it holds nothing, so the hold clause is the
// claim's own (its ledger row and nothing else). The venue runs it on each of its items.

let shop: { db: LedgerDatabase; close: () => Promise<void> }
let payments: PaymentsDeps
beforeAll(async () => {
  shop = await openTestShopDatabase()
  payments = paymentsFromEnv(UNUSED_PAYMENTS_ENV, { db: shop.db })
})
afterAll(() => shop?.close())

let orders = 0
describe('the reference item (test_item)', () =>
  paidItemContract(() => ({
    item: TEST_ITEM,
    items: [TEST_ITEM],
    deps: { payments, baseUrl: () => 'http://paid-item.test' },
    price: { amount: 1_000_000n },
    order: async () => ({ item: `contract-${++orders}` }),
    answer: testAnswer,
    documentedPrice: async () => 1_000_000n,
  })))

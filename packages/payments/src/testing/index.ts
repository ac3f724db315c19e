export { devnetBaseRail } from './devnet-rail.ts'
export {
  type ChildServiceTarget,
  type ExactlyOnceTarget,
  exactlyOnceScenarios,
  type FaultSwitch,
  killScenario,
  paymentsHealthScenario,
} from './exactly-once-suite.ts'
export { type FaultDevnet, startFaultDevnet } from './fault-devnet.ts'
export {
  amountsAsked,
  type PaidItemContractTarget,
  paidItemContract,
  tableCounts,
} from './paid-item-contract.ts'
export {
  baseRequirementOf,
  hostPortOf,
  mppModeOf,
  PAYER_RAILS,
  type PayerRail,
  type Purchase,
  payFor,
  retryUntilSettled,
  type SentRequest,
  send,
  sumBalances,
  throughProxy,
} from './paid-route-harness.ts'
export {
  type SellTestItemParameters,
  sellTestItem,
  TEST_ITEM,
  TEST_SHOP_BASE_URL,
  testItem,
  testItemRequestKey,
} from './sell-test-item.ts'
export { paymentSignatureHeader, signAuthorization, xPaymentHeader } from './sign-authorization.ts'
export { freePort, type SpawnedService, spawnService } from './spawn-service.ts'
export {
  countDeliveries,
  LEDGER_TABLE_SQL,
  openTestShopDatabase,
  type TestFulfilment,
  type TestOrder,
  testAnswer,
  testProduct,
} from './test-shop.ts'
export { UNUSED_PAYMENTS_ENV } from './unused-payments-env.ts'

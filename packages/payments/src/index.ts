export {
  type ChargeParameters,
  type ChargeResult,
  carriesPayment,
  charge,
  type MppAdapter,
  type PaymentsDeps,
} from './charge.ts'
export { checkPaymentSettings, type PaymentSettings } from './check-settings.ts'
export { PaymentReason, PaymentsConfigError } from './errors.ts'
export {
  type FacilitatorSettings,
  facilitatorSettle,
  facilitatorVerify,
} from './facilitator-client.ts'
export {
  decodeBase64Json,
  encodeBase64Json,
  PAYMENT_RECEIPT_HEADER,
  PAYMENT_REQUIRED_HEADER,
  PAYMENT_RESPONSE_HEADER,
  PAYMENT_SIGNATURE_HEADER,
  WWW_AUTHENTICATE_HEADER,
  X_PAYMENT_HEADER,
  X_PAYMENT_RESPONSE_HEADER,
} from './headers.ts'
export { createMppAdapter, type MppSettings } from './mpp/create-mpp-adapter.ts'
export { type PaidOptions, type PayerVariables, paid } from './paid.ts'
export { PaymentsEnv, paymentsFromEnv } from './payments-from-env.ts'
export { createMemoryReceiptStore, type ReceiptStore } from './receipt-store.ts'
export { createSqlReceiptStore, receiptTableSql, type SqlQueryable } from './sql-receipt-store.ts'
export type { Network, PaymentReceipt, Price, Resource, X402Rail } from './types.ts'
export {
  buildRequirementsV1,
  buildRequirementsV2,
  type RequirementV1,
  type RequirementV2,
} from './x402/requirements.ts'

export {
  type ChainAnswer,
  createSettlementReader,
  type MppProof,
  type PaymentProof,
  type SettlementReader,
  type X402Proof,
} from './chain/settlement-reader.ts'
export {
  type ChallengeParameters,
  carriesPayment,
  type PaymentChallenge,
  paymentChallenge,
} from './challenge.ts'
export { checkPaymentSettings, type PaymentSettings } from './check-settings.ts'
export { PaidItemsError, PaymentReason, PaymentsConfigError } from './errors.ts'
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
export { type PaymentsHealth, PaymentsHealthSchema, paymentsHealth } from './health.ts'
export {
  type AnonymizedPayment,
  anonymizedReference,
  anonymizePayments,
  PAYMENT_LEDGER_ERASES,
  type PaymentsToAnonymize,
} from './ledger/anonymize.ts'
export {
  createPaymentLedger,
  type LedgerDatabase,
  type LedgerEntry,
  type LedgerTx,
  type PaymentLedger,
  type PaymentLedgerOptions,
} from './ledger/ledger.ts'
export {
  LEDGER_STATES,
  type LedgerRow,
  type LedgerState,
  paymentLedger,
} from './ledger/ledger-table.ts'
export {
  createMppAdapter,
  type MppAdapter,
  type MppAttempt,
  type MppModes,
  type MppSettings,
} from './mpp/create-mpp-adapter.ts'
export {
  type AnyPaidItem,
  definePaidItem,
  type PaidItem,
  type PaidItemDefinition,
  type PaidItemDeps,
} from './paid-item/define-paid-item.ts'
export { kindsWithoutItem, productsOf } from './paid-item/products-of.ts'
export { type SaleTermsOverrides, saleTermsOf } from './paid-item/sale-terms-of.ts'
export { type SellItemParameters, sellItem } from './paid-item/sell-item.ts'
export type { PaymentsDeps, PaymentsLogger } from './payments-deps.ts'
export { PaymentsEnv, paymentsFromEnv } from './payments-from-env.ts'
export { receiptFromChain, receiptHeader } from './receipts.ts'
export { type ReconcileResult, reconcilePayments, startReconciler } from './reconcile.ts'
export { ResourceUrlError, resourceUrl } from './resource-url.ts'
export type { HoldAnswer, SaleAnswer } from './sale-answer.ts'
export type { PaymentRefusal, SaleOutcome } from './sale-outcome.ts'
export type {
  AnyProduct,
  ReconciledProduct,
  SaleProduct,
  SaleTerms,
  SellParameters,
} from './sale-product.ts'
export { type SaleResponseOptions, saleAnswerResponse, saleResponse } from './sale-response.ts'
export { sell } from './sell.ts'
export type { Network, PaymentReceipt, Price, Resource, X402Rail } from './types.ts'
export { verifyAhead } from './verify-ahead.ts'
export {
  PaymentRequiredSchema,
  RequirementV1Schema,
  RequirementV2Schema,
} from './x402/requirement-schemas.ts'
export {
  buildRequirementsV1,
  buildRequirementsV2,
  type RequirementV1,
  type RequirementV2,
} from './x402/requirements.ts'

export { devnetBaseRail } from './devnet-rail.ts'
export { paymentSignatureHeader, signAuthorization, xPaymentHeader } from './sign-authorization.ts'
export { UNUSED_PAYMENTS_ENV } from './unused-payments-env.ts'

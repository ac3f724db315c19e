export { devnetBaseRail } from './devnet-rail.ts'
export { paymentSignatureHeader, signAuthorization, xPaymentHeader } from './sign-authorization.ts'

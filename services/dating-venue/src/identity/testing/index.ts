// Test doubles of the identity module: never exported by the production barrel (../index.ts).

export { SIGNATURE_HEADER, signWebhookBody, TIMESTAMP_HEADER } from '../webhook-signature.ts'
export {
  createLocalIdp,
  type LocalIdp,
  type LocalIdpAnswer,
  type LocalIdpDecision,
  type LocalIdpDelivery,
  type LocalIdpMisbehaviour,
  type LocalIdpSession,
} from './local-idp.ts'
export {
  createLocalIssuer,
  type LocalIssuer,
  type SignLocalTokenOptions,
} from './local-issuer.ts'
export { type SignSiweLoginParameters, signSiweLogin } from './sign-siwe-login.ts'

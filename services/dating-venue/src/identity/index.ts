export { LOGIN_FAILURES, type LoginFailure } from '../login/login-failures.ts'
export type { LoginVerification } from '../login/login-verification.ts'
export {
  decodeSiweAuthToken,
  encodeSiweAuthToken,
  SiweAuthToken,
} from '../login/siwe-auth-token.ts'
export { type VerifySiweTokenParameters, verifySiweToken } from '../login/verify-siwe-token.ts'
export { IDP_FAILURES, type IdpFailure, WEBHOOK_FAILURES, type WebhookFailure } from './errors.ts'
export { extractAge } from './extract-age.ts'
export {
  type CreateIdpClientParameters,
  type CreateIdpSessionParameters,
  type CreateIdpSessionReturnType,
  createIdpClient,
  type IdpClient,
} from './idp-client.ts'
export { IdpConfig, refineIdpConfig, toIdpClientParameters } from './idp-config.ts'
export type { IdpApiVersion } from './idp-session-path.ts'
export { LoginConfig, toLoginVerifierConfig } from './login-config.ts'
export {
  type CreateLoginVerifierOptions,
  createLoginVerifier,
  type LoginVerifier,
  type LoginVerifierConfig,
  type VerifyLoginTokenOptions,
} from './login-token.ts'
export { LOGIN_ALGORITHMS, TrustedIssuer, type TrustedIssuerInput } from './trusted-issuer.ts'
export type { IdpEvent } from './types.ts'
export {
  type VerifyWebhookParameters,
  type VerifyWebhookReturnType,
  verifyWebhook,
} from './webhook.ts'
export { SIGNATURE_HEADER, signWebhookBody, TIMESTAMP_HEADER } from './webhook-signature.ts'

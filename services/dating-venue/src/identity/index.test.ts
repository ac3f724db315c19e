import { expect, test } from 'vitest'
import * as identity from './index.ts'

test('exports', () => {
  expect(Object.keys(identity).sort()).toMatchInlineSnapshot(`
    [
      "IDP_FAILURES",
      "IdpConfig",
      "LOGIN_ALGORITHMS",
      "LOGIN_FAILURES",
      "LoginConfig",
      "SIGNATURE_HEADER",
      "SiweAuthToken",
      "TIMESTAMP_HEADER",
      "TrustedIssuer",
      "WEBHOOK_FAILURES",
      "createIdpClient",
      "createLoginVerifier",
      "decodeSiweAuthToken",
      "encodeSiweAuthToken",
      "extractAge",
      "refineIdpConfig",
      "signWebhookBody",
      "toIdpClientParameters",
      "toLoginVerifierConfig",
      "verifySiweToken",
      "verifyWebhook",
    ]
  `)
})

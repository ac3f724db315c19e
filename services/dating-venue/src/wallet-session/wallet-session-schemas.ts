import { SafeText } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import { SIWE_CHAIN_ID } from '../login/verify-siwe-token.ts'

/** A one-time nonce and the fields of the SIWE message the chat page signs. */
export const Nonce = z
  .object({
    nonce: z.string(),
    domain: z.string().openapi({ description: 'the domain the SIWE message must name' }),
    uri: z.string(),
    chainId: z.literal(SIWE_CHAIN_ID),
    statement: z.string(),
    expiresAt: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('ChatNonce')

export const SignInBody = z
  .object({
    message: SafeText.min(1)
      .max(4096)
      .openapi({ description: 'the EIP-4361 message, exactly as signed' }),
    signature: z.string().regex(/^0x[0-9a-fA-F]{130}$/),
  })
  .strict()
  .openapi('ChatSignIn')

/** The signed-in wallet and whether it attested 18+. */
export const Me = z.object({ wallet: z.string(), attested: z.boolean() }).openapi('ChatWallet')

export const AttestBody = z
  .object({ adult: z.literal(true).openapi({ description: 'I am 18 or older' }) })
  .strict()
  .openapi('ChatAttestation')

/**
 * A sign-out's body: an empty JSON object. Signing out changes state, so it
 * is JSON only like every other such POST (415 otherwise): no cross-site
 * form can send it.
 */
export const SignOutBody = z.object({}).strict().openapi('SignOut')

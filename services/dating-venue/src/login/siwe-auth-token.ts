import { z } from 'zod'

/**
 * What a Sign-In with Ethereum login carries: the EIP-4361 message text
 * exactly as signed, and the wallet's `personal_sign` (EIP-191) signature.
 */
export const SiweAuthToken = z.object({
  message: z.string().min(1).max(4096),
  signature: z.string().regex(/^0x[0-9a-fA-F]+$/, 'expected 0x-prefixed hex'),
})
export type SiweAuthToken = z.infer<typeof SiweAuthToken>

// Plenty for a SIWE message plus signature; bounds the work on hostile input.
const MAX_TOKEN_CHARS = 8192

/**
 * Encodes a SIWE login as an `authToken`: base64url (no padding) of the
 * UTF-8 JSON `{ "message": ..., "signature": "0x..." }`. Base64url keeps it
 * safe in a URL fragment (`#authToken=`) and free of dots, so it never looks
 * like a JWT.
 *
 * @example encodeSiweAuthToken({ message, signature: await account.signMessage({ message }) })
 */
export const encodeSiweAuthToken = (token: SiweAuthToken): string =>
  Buffer.from(JSON.stringify(token), 'utf8').toString('base64url')

/** Decodes an `authToken` made by {@link encodeSiweAuthToken}; `undefined` when it is not one. */
export const decodeSiweAuthToken = (authToken: string): SiweAuthToken | undefined => {
  if (authToken.length > MAX_TOKEN_CHARS || !/^[A-Za-z0-9_-]+$/.test(authToken)) return undefined
  try {
    const json = new TextDecoder('utf-8', { fatal: true }).decode(
      Buffer.from(authToken, 'base64url'),
    )
    const parsed = SiweAuthToken.safeParse(JSON.parse(json))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto'
import type { FacilitatorSettings } from './facilitator-client.ts'

/** A CDP secret API key: its id (`kid`, `sub`) and its private key. */
export type CdpApiKey = { id: string; secret: string }

// PKCS#8 framing of a raw Ed25519 seed (RFC 8410): the prefix plus 32 bytes.
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex')
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/

/**
 * Reads a CDP API key secret in the forms Coinbase hands out, refusing
 * anything that could not sign: an EC P-256 PEM key (ES256; the portal's
 * `BEGIN EC PRIVATE KEY`, or PKCS#8) or a base64 Ed25519 key (EdDSA; 64 bytes,
 * the seed then the public key, which must belong to the seed). Answers the
 * secret as `generateJwt` takes it: the SDK's TypeScript build reads only
 * PKCS#8 PEM (jose's `importPKCS8`), so a SEC1 key is re-encoded, not
 * re-signed. A PEM pasted into one line with `\n` escapes is accepted.
 */
export const readCdpSecret = (secret: string): { secret: string } | { problem: string } => {
  const text = secret.trim()
  if (text.startsWith('-----BEGIN')) {
    let key: KeyObject
    try {
      key = createPrivateKey(text.replaceAll('\\n', '\n'))
    } catch {
      return { problem: 'CDP_API_KEY_SECRET is a PEM block but no readable private key' }
    }
    const curve = key.asymmetricKeyDetails?.namedCurve
    if (key.asymmetricKeyType !== 'ec' || curve !== 'prime256v1') {
      return {
        problem: `CDP_API_KEY_SECRET is a PEM ${key.asymmetricKeyType}${curve ? ` ${curve}` : ''} key; CDP signs with an EC P-256 PEM key or a base64 Ed25519 key`,
      }
    }
    return { secret: key.export({ type: 'pkcs8', format: 'pem' }) as string }
  }
  const bytes = BASE64.test(text) ? Buffer.from(text, 'base64') : Buffer.alloc(0)
  if (bytes.length !== 64) {
    return {
      problem:
        'CDP_API_KEY_SECRET is neither an EC P-256 PEM key nor a base64 Ed25519 key (64 bytes: seed and public key)',
    }
  }
  const seed = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, bytes.subarray(0, 32)]),
    format: 'der',
    type: 'pkcs8',
  })
  const publicKey = createPublicKey(seed).export({ format: 'jwk' }).x
  if (publicKey !== bytes.subarray(32).toString('base64url')) {
    // The SDK signs with the seed and states the second half as the public
    // key; CDP would refuse every call.
    return { problem: "CDP_API_KEY_SECRET's Ed25519 public half does not belong to its seed" }
  }
  return { secret: text }
}

/**
 * Coinbase's CDP authentication for an x402 facilitator: each call carries
 * a fresh JWT from Coinbase's own `generateJwt` (ES256 or EdDSA by key; `sub`
 * and `kid` the key id, `iss: cdp`, `nbf` now, `exp` +120 s, a random header
 * `nonce`, `uris: ["POST api.cdp.coinbase.com/platform/v2/x402/verify"]`: the
 * call's method, host and path). `ready` settles once the SDK is loaded: its
 * auth module pulls axios (0.24 s), so only services using CDP import it.
 * The key must have passed `readCdpSecret`.
 */
export const cdpAuthentication = (
  key: CdpApiKey,
): { authenticate: NonNullable<FacilitatorSettings['authenticate']>; ready: Promise<void> } => {
  const sdk = import('@coinbase/cdp-sdk/auth')
  return {
    ready: sdk.then(() => undefined),
    authenticate: async ({ method, url }) => {
      const { generateJwt } = await sdk
      const jwt = await generateJwt({
        apiKeyId: key.id,
        apiKeySecret: key.secret,
        requestMethod: method,
        requestHost: url.host,
        requestPath: url.pathname,
      })
      return { authorization: `Bearer ${jwt}` }
    },
  }
}

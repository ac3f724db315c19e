import { generateKeyPairSync, type KeyObject, randomUUID } from 'node:crypto'

/** A CDP secret API key as the portal hands it out, and the public part CDP checks JWTs with. */
export type CdpApiKey = {
  /** `CDP_API_KEY_ID`: the JWT's `kid` and `sub`. */
  id: string
  /** `CDP_API_KEY_SECRET`: an EC P-256 PEM (`BEGIN EC PRIVATE KEY`) or base64 Ed25519 seed and public key. */
  secret: string
  publicKey: KeyObject
}

/**
 * A fresh CDP API key of either kind CDP issues: `ec` (ES256; the secret a
 * SEC1 PEM, as the portal's JSON gives it) or `ed25519` (EdDSA; the secret
 * base64 of the 32-byte seed then the 32-byte public key).
 *
 * @example
 * const key = createCdpApiKey('ed25519')
 * const stand = await startCdpFacilitator({ upstream, keys: [key] })
 * env.CDP_API_KEY_ID = key.id; env.CDP_API_KEY_SECRET = key.secret
 */
export const createCdpApiKey = (kind: 'ec' | 'ed25519'): CdpApiKey => {
  const id = `organizations/${randomUUID()}/apiKeys/${randomUUID()}`
  if (kind === 'ec') {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    return { id, secret: privateKey.export({ type: 'sec1', format: 'pem' }) as string, publicKey }
  }
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const { d, x } = privateKey.export({ format: 'jwk' })
  const secret = Buffer.concat([Buffer.from(d!, 'base64url'), Buffer.from(x!, 'base64url')])
  return { id, secret: secret.toString('base64'), publicKey }
}

import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  importPKCS8,
  type JWK,
} from 'jose'

export type Es256Key = {
  privateKey: CryptoKey
  kid: string
  /** The public half, for a `/.well-known/jwks.json`. */
  jwks: { keys: JWK[] }
}

/**
 * A service's ES256 signing key from configuration: PKCS#8 PEM or a private
 * JWK as JSON; a fresh key pair when none is configured (one process only:
 * replicas must share a configured key). The key id is the JWK thumbprint.
 */
export const loadEs256Key = async (
  configured: string | undefined,
  name: string,
): Promise<Es256Key> => {
  const privateKey = configured
    ? configured.trimStart().startsWith('{')
      ? await importJWK({ ...(JSON.parse(configured) as JWK), alg: 'ES256' }, 'ES256', {
          extractable: true,
        })
      : await importPKCS8(configured, 'ES256', { extractable: true })
    : (await generateKeyPair('ES256', { extractable: true })).privateKey
  if (privateKey instanceof Uint8Array) throw new Error(`${name}: not an EC key`)
  const { d: _secret, ...publicJwk } = await exportJWK(privateKey)
  if (publicJwk.kty !== 'EC' || publicJwk.crv !== 'P-256')
    throw new Error(`${name}: expected a P-256 (ES256) key`)
  const kid = await calculateJwkThumbprint(publicJwk)
  return { privateKey, kid, jwks: { keys: [{ ...publicJwk, kid, alg: 'ES256', use: 'sig' }] } }
}

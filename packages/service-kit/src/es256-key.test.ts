import { exportJWK, exportPKCS8, generateKeyPair } from 'jose'
import { describe, expect, test } from 'vitest'
import { loadEs256Key } from './es256-key.ts'

describe('loadEs256Key', () => {
  test('behavior: the same key as PKCS#8 PEM and as a private JWK has one key id and public half', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true })
    const fromPem = await loadEs256Key(await exportPKCS8(privateKey), 'SIGNING_KEY')
    const fromJwk = await loadEs256Key(JSON.stringify(await exportJWK(privateKey)), 'SIGNING_KEY')
    expect(fromJwk.kid).toBe(fromPem.kid)
    expect(fromJwk.jwks).toEqual(fromPem.jwks)
    // The published set carries no private part.
    expect(JSON.stringify(fromJwk.jwks)).not.toContain('"d"')
  })

  test('error: a key that is not P-256 is refused by name', async () => {
    const { privateKey } = await generateKeyPair('ES384', { extractable: true })
    await expect(
      loadEs256Key(JSON.stringify(await exportJWK(privateKey)), 'SIGNING_KEY'),
    ).rejects.toThrow()
  })
})

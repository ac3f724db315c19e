import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

/**
 * contactRef at rest: AES-256-GCM, `v1.<iv>.<tag>.<ciphertext>` in base64url.
 * The key comes from configuration; the row alone reveals nothing.
 */
export const createSealer = (key: Buffer) => {
  if (key.length !== 32) throw new Error('the contact key must be 32 bytes')
  return {
    seal: (plain: string) => {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
      return ['v1', iv, cipher.getAuthTag(), body]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.')
    },
    open: (sealed: string) => {
      const [version, iv, tag, body] = sealed.split('.')
      if (version !== 'v1' || !iv || !tag || body === undefined)
        throw new Error('not a sealed value')
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
      decipher.setAuthTag(Buffer.from(tag, 'base64url'))
      return Buffer.concat([
        decipher.update(Buffer.from(body, 'base64url')),
        decipher.final(),
      ]).toString('utf8')
    },
  }
}
export type Sealer = ReturnType<typeof createSealer>

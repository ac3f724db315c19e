import { createHash } from 'node:crypto'
import { loadEs256Key } from '@agents/service-kit'
import { type JWK, SignJWT } from 'jose'

const ALG = 'ES256'

export type VenueSigner = {
  /** A short-lived JWT naming the recipient and the sha256 of the exact body bytes. */
  sign: (body: string, audience: string) => Promise<string>
  jwks: { keys: JWK[] }
}

/**
 * Signs what the venue sends to agents (match notifications, invites): the
 * `Venue-Signature` header is an ES256 JWT whose `body_sha256` is the hex
 * sha256 of the request body, `aud` the agent endpoint (`agent:<id>`), valid
 * 5 minutes. Agents verify it with `GET /.well-known/jwks.json`.
 */
export const createVenueSigner = async (signingKey: string | undefined): Promise<VenueSigner> => {
  const { privateKey, kid, jwks } = await loadEs256Key(signingKey, 'VENUE_SIGNING_KEY')
  return {
    jwks,
    sign: (body, audience) =>
      new SignJWT({ body_sha256: createHash('sha256').update(body).digest('hex') })
        .setProtectedHeader({ alg: ALG, kid, typ: 'JWT' })
        .setIssuer('dating-venue')
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey),
  }
}

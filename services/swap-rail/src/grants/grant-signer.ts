import { randomUUID } from 'node:crypto'
import { loadEs256Key } from '@agents/service-kit'
import { type JWK, SignJWT } from 'jose'

const ALG = 'ES256'

export type GrantClaims = {
  matchId: string
  model: string
  mtok: number
  /** The seller endpoint: the grant's audience, checked by the seller. */
  endpoint: string
}

export type Grant = {
  bearer: string
  endpoint: string
  model: string
  mtok: number
  expiresAt: string
}

export type GrantSigner = {
  issue: (claims: GrantClaims, now?: Date) => Promise<Grant>
  /** The public half, for `GET /.well-known/jwks.json`. */
  jwks: { keys: JWK[] }
}

export type GrantSignerParameters = {
  /** PKCS#8 PEM or a private JWK as JSON; a fresh key pair when absent (one process only). */
  signingKey?: string | undefined
  /** The hub's public base URL (read when a grant is issued: it may be known only after listening). */
  issuer: () => string
  ttlMinutes: number
}

/**
 * Signs grants: ES256 JWTs naming the match, model, MTok and the seller
 * endpoint as audience (format in packages/swap-seller/README.md). Metering
 * is per match id (`sub`), so handing out a fresh grant for the same match
 * never buys more MTok.
 */
export const createGrantSigner = async ({
  signingKey,
  issuer,
  ttlMinutes,
}: GrantSignerParameters): Promise<GrantSigner> => {
  const { privateKey, kid, jwks } = await loadEs256Key(signingKey, 'SWAP_GRANT_SIGNING_KEY')
  return {
    jwks,
    issue: async ({ matchId, model, mtok, endpoint }, now = new Date()) => {
      const issuedAt = Math.floor(now.getTime() / 1000)
      const expiresAt = issuedAt + ttlMinutes * 60
      const bearer = await new SignJWT({ model, mtok })
        .setProtectedHeader({ alg: ALG, kid, typ: 'JWT' })
        .setIssuer(issuer())
        .setSubject(matchId)
        .setAudience(endpoint)
        .setIssuedAt(issuedAt)
        .setExpirationTime(expiresAt)
        .setJti(randomUUID())
        .sign(privateKey)
      return {
        bearer,
        endpoint,
        model,
        mtok,
        expiresAt: new Date(expiresAt * 1000).toISOString(),
      }
    },
  }
}

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { ApiError, ROW_ID_MAX } from '@agents/service-kit'

/**
 * Bearer credentials the venue issues: `vo_<ownerId>_<secret>` when an owner
 * is created, `va_<endpointId>_<secret>` when an agent endpoint becomes
 * active. Only sha256(secret) is stored; the id in front finds the row, so
 * the secret is compared once, in constant time.
 */
export type CredentialKind = 'owner' | 'agent'
const PREFIX: Record<CredentialKind, string> = { owner: 'vo', agent: 'va' }

export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex')

/** A new secret and the hash to store; the credential is formed once the row's id is known. */
export const newSecret = () => {
  const secret = randomBytes(32).toString('base64url')
  return { secret, hash: hashSecret(secret) }
}

export const formatCredential = (kind: CredentialKind, id: number, secret: string) =>
  `${PREFIX[kind]}_${id}_${secret}`

export type ParsedCredential = { kind: CredentialKind; id: number; secret: string }

export const parseCredential = (value: string): ParsedCredential | undefined => {
  const match = /^(vo|va)_([1-9]\d{0,9})_([A-Za-z0-9_-]{43})$/.exec(value)
  // An id no row can have (over int4) is no credential, not a query that fails.
  if (!match || Number(match[2]) > ROW_ID_MAX) return undefined
  return { kind: match[1] === 'vo' ? 'owner' : 'agent', id: Number(match[2]), secret: match[3]! }
}

export const secretMatches = (secret: string, storedHash: string | null | undefined) => {
  if (!storedHash) return false
  const given = Buffer.from(hashSecret(secret), 'hex')
  const stored = Buffer.from(storedHash, 'hex')
  return given.length === stored.length && timingSafeEqual(given, stored)
}

/** The bearer of a request, or a 401 naming what is expected. */
export const bearerOf = (authorization: string | undefined, what: string) => {
  const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')
  if (!match) throw new ApiError(401, `credential required: ${what}`)
  return match[1]!
}

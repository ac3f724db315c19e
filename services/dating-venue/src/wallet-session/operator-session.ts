import { createHash, randomBytes } from 'node:crypto'
import { type Refusal, refusal } from '@agents/service-kit'
import { and, eq, gt, lt, sql } from 'drizzle-orm'
import type { VenueDatabase } from '../db/open.ts'
import { operatorSessions } from '../db/schema.ts'
import { LOGIN_FAILURES } from '../login/login-failures.ts'
import { encodeSiweAuthToken } from '../login/siwe-auth-token.ts'
import { verifySiweToken } from '../login/verify-siwe-token.ts'
import { takeNonce } from './wallet-session.ts'

/** The console's session cookie: HttpOnly, SameSite=Strict, Secure outside local runs. */
export const OPERATOR_COOKIE = 'venue_operator'
/** A console session lasts a working day; signing in again is one signature. */
export const OPERATOR_SESSION_HOURS = 12

export const OPERATOR_ERRORS = {
  signInFailed: 'sign-in failed',
  unknownNonce: 'sign-in nonce unknown, used or expired: fetch a new one',
  notOperator: 'this wallet is not an operator of this venue',
  required: 'operator credential required',
  notRecognised: 'operator credential not recognised',
} as const

type OperatorDeps = {
  database: VenueDatabase
  /** Lower-case operator wallets (VENUE_OPERATOR_WALLETS). */
  operatorWallets: readonly string[]
  siweDomain: () => string
  /** The venue's origin, which the message's URI must be on. */
  origin: () => string
}

const hash = (secret: string) => createHash('sha256').update(secret).digest('hex')

export type OperatorSignIn =
  | { ok: true; operator: string; secret: string; expiresAt: Date }
  | Refusal<401 | 403>

/**
 * Signs an operator in with Sign-In with Ethereum: every field of the
 * message is checked as for the chat page (`verifySiweToken`), its nonce is
 * ours and unused (spent here), and the address is on the operator
 * allow-list. Only the secret's digest is stored; the secret goes to the cookie.
 */
export const signInOperator = async (
  deps: OperatorDeps,
  { message, signature }: { message: string; signature: `0x${string}` },
): Promise<OperatorSignIn> => {
  const verified = await verifySiweToken({
    authToken: encodeSiweAuthToken({ message, signature }),
    domain: deps.siweDomain(),
    origin: deps.origin(),
    useNonce: (nonce) => takeNonce(deps, nonce),
  })
  if (!verified.ok)
    return verified.reason === LOGIN_FAILURES.unknownNonce
      ? refusal(401, OPERATOR_ERRORS.unknownNonce)
      : refusal(401, OPERATOR_ERRORS.signInFailed, { reason: verified.reason })
  const operator = verified.address!.toLowerCase()
  if (!deps.operatorWallets.includes(operator)) return refusal(403, OPERATOR_ERRORS.notOperator)
  const secret = randomBytes(32).toString('base64url')
  const expiresAt = new Date(Date.now() + OPERATOR_SESSION_HOURS * 3_600_000)
  // Expired sessions go with each sign-in: the table holds the operators signed in now.
  await deps.database.db.delete(operatorSessions).where(lt(operatorSessions.expiresAt, sql`now()`))
  await deps.database.db
    .insert(operatorSessions)
    .values({ idHash: hash(secret), operator, expiresAt })
  return { ok: true, operator, secret, expiresAt }
}

/**
 * The operator a console cookie speaks for, while the session lives and the
 * wallet is still on the allow-list (removing a wallet ends its sessions).
 */
export const operatorOfSession = async (
  deps: Pick<OperatorDeps, 'database' | 'operatorWallets'>,
  secret: string,
): Promise<string | undefined> => {
  const [row] = await deps.database.db
    .select({ operator: operatorSessions.operator })
    .from(operatorSessions)
    .where(
      and(eq(operatorSessions.idHash, hash(secret)), gt(operatorSessions.expiresAt, sql`now()`)),
    )
  return row && deps.operatorWallets.includes(row.operator) ? row.operator : undefined
}

export const endOperatorSession = async (
  { database }: Pick<OperatorDeps, 'database'>,
  secret: string,
) => {
  await database.db.delete(operatorSessions).where(eq(operatorSessions.idHash, hash(secret)))
}

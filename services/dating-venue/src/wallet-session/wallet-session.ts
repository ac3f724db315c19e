import { createHash, randomBytes } from 'node:crypto'
import { ApiError, type Refusal, refusal } from '@agents/service-kit'
import { pgArray, rowsOf } from '@agents/service-kit/db'
import { and, eq, gt, lt, sql } from 'drizzle-orm'
import { getCookie } from 'hono/cookie'
import { coalesce, coalescedPer } from '../db/coalesce.ts'
import type { VenueDatabase } from '../db/open.ts'
import { chatNonces, chatSessions, chatWallets } from '../db/schema.ts'
import { LOGIN_FAILURES } from '../login/login-failures.ts'
import { encodeSiweAuthToken } from '../login/siwe-auth-token.ts'
import { verifySiweToken } from '../login/verify-siwe-token.ts'
import type { VenueContext, VenueMiddleware, VenueVariables } from '../venue-env.ts'
import { CHAT_ERRORS } from './chat-errors.ts'
import { refuseCrossSite } from './cross-site.ts'
import type { HumanChatSettings } from './human-chat-settings.ts'

/** The chat session cookie: HttpOnly, SameSite=Strict, Secure outside tests and local runs. */
export const CHAT_COOKIE = 'venue_chat'
const NONCE_TTL_MS = 10 * 60_000

type ChatDeps = { database: VenueDatabase; humanChat: HumanChatSettings }

const hash = (secret: string) => createHash('sha256').update(secret).digest('hex')

/** A one-time SIWE nonce (EIP-4361: at least 8 alphanumerics), valid for ten minutes. */
export const issueNonce = async ({ database }: ChatDeps) => {
  const nonce = randomBytes(16).toString('hex')
  const expiresAt = new Date(Date.now() + NONCE_TTL_MS)
  // Expired nonces go with each issue: the table stays as small as the sign-ins in flight.
  await database.db.delete(chatNonces).where(lt(chatNonces.expiresAt, sql`now()`))
  await database.db.insert(chatNonces).values({ nonce, expiresAt })
  return { nonce, expiresAt }
}

/**
 * Spends a nonce `issueNonce` gave out (the chat page's or the console's):
 * true the first time, while it lives; false for a nonce this venue never
 * issued, one that expired, or one already used.
 */
export const takeNonce = async ({ database }: Pick<ChatDeps, 'database'>, nonce: string) => {
  const used = await database.db
    .delete(chatNonces)
    .where(and(eq(chatNonces.nonce, nonce), gt(chatNonces.expiresAt, sql`now()`)))
    .returning({ nonce: chatNonces.nonce })
  return used.length > 0
}

export type SignInOutcome =
  | { ok: true; wallet: string; secret: string; expiresAt: Date; attested: boolean }
  | Refusal<401>

/**
 * Signs a wallet in: every field of the EIP-4361 message is checked
 * (`verifySiweToken`: our domain, a URI on our origin, our chain, version
 * 1, fresh, signed by its address) and its nonce is one we issued and
 * nobody used (spent here, once). The session's secret goes to the cookie only.
 */
export const signIn = async (
  deps: ChatDeps,
  { message, signature }: { message: string; signature: `0x${string}` },
): Promise<SignInOutcome> => {
  const verified = await verifySiweToken({
    authToken: encodeSiweAuthToken({ message, signature }),
    domain: deps.humanChat.siweDomain(),
    origin: deps.humanChat.origin(),
    useNonce: (nonce) => takeNonce(deps, nonce),
  })
  if (!verified.ok)
    return verified.reason === LOGIN_FAILURES.unknownNonce
      ? refusal(401, CHAT_ERRORS.unknownNonce)
      : refusal(401, CHAT_ERRORS.signInFailed, { reason: verified.reason })
  const wallet = verified.address!.toLowerCase()
  const secret = randomBytes(32).toString('base64url')
  const expiresAt = new Date(Date.now() + deps.humanChat.sessionHours * 3_600_000)
  await deps.database.db.insert(chatSessions).values({ idHash: hash(secret), wallet, expiresAt })
  await deps.database.db.insert(chatWallets).values({ wallet }).onConflictDoNothing()
  return { ok: true, wallet, secret, expiresAt, attested: await isAttested(deps, wallet) }
}

export const isAttested = async ({ database }: Pick<ChatDeps, 'database'>, wallet: string) => {
  const [row] = await database.db
    .select({ at: chatWallets.adultAttestedAt })
    .from(chatWallets)
    .where(eq(chatWallets.wallet, wallet))
  return Boolean(row?.at)
}

/** The wallet's 18+ attestation, stored once (a repeat keeps the first time). */
export const attestAdult = async ({ database }: Pick<ChatDeps, 'database'>, wallet: string) => {
  await database.db
    .insert(chatWallets)
    .values({ wallet, adultAttestedAt: new Date() })
    .onConflictDoUpdate({
      target: chatWallets.wallet,
      set: { adultAttestedAt: sql`coalesce(${chatWallets.adultAttestedAt}, now())` },
    })
}

export const endSession = async ({ database }: Pick<ChatDeps, 'database'>, secret: string) => {
  await database.db.delete(chatSessions).where(eq(chatSessions.idHash, hash(secret)))
}

/** The session cookie's attributes: a browser holds it, scripts and other sites never see it. */
export const sessionCookie = (deps: ChatDeps, expiresAt?: Date) => ({
  httpOnly: true,
  sameSite: 'Strict' as const,
  secure: deps.humanChat.secureCookie(),
  path: '/',
  ...(expiresAt ? { expires: expiresAt } : { maxAge: 0 }),
})

/** What `requireChatWallet` sets: the signed-in wallet, its attestation and its session's secret. */
export type ChatWalletVariables = Pick<VenueVariables, 'chatWallet'>

type LiveSession = { wallet: string; attested: boolean }

// The live sessions behind concurrent requests' cookies, one statement (coalesce).
const liveSessions = coalescedPer((database: VenueDatabase) =>
  coalesce(async (idHashes: string[]) => {
    const result = await database.client.query(
      `SELECT s.id_hash, s.wallet, w.adult_attested_at IS NOT NULL AS attested
       FROM chat_sessions s LEFT JOIN chat_wallets w ON w.wallet = s.wallet
       WHERE s.id_hash = ANY($1::text[]) AND s.expires_at > now()`,
      [pgArray(idHashes)],
    )
    const live = new Map(
      rowsOf<LiveSession & { id_hash: string }>(result).map((row) => [row.id_hash, row]),
    )
    return idHashes.map((idHash): LiveSession | undefined => live.get(idHash))
  }),
)

/**
 * The signed-in wallet of a chat route, resolved once: 401 without a live
 * session; with `adult`, 403 until the wallet attested 18+. A state-changing
 * request from another origin is refused (the cookie is SameSite=Strict too,
 * and every POST must be JSON, which no form can send cross-site).
 */
export const requireChatWallet = (
  deps: ChatDeps,
  { adult = false }: { adult?: boolean } = {},
): VenueMiddleware =>
  async function chatWalletRequired(c, next) {
    refuseCrossSite(c, deps.humanChat.origin())
    const secret = getCookie(c, CHAT_COOKIE)
    const session = secret ? await liveSessions(deps.database)(hash(secret)) : undefined
    if (!session || !secret) throw new ApiError(401, CHAT_ERRORS.signInRequired)
    const attested = session.attested
    if (adult && !attested) throw new ApiError(403, CHAT_ERRORS.attestationRequired)
    c.set('chatWallet', { wallet: session.wallet, attested, secret })
    await next()
  }

/** The wallet a `requireChatWallet` route speaks for. */
export const chatWalletOf = (c: VenueContext) => {
  const resolved = c.get('chatWallet')
  if (!resolved) throw new Error('route reads a chat wallet its middleware never resolved')
  return resolved
}

/** The wallet a chat cookie's live session is bound to (erasure by the human of the chat page). */
export const walletOfChatSession = async (
  { database }: Pick<ChatDeps, 'database'>,
  secret: string,
): Promise<string | undefined> => {
  const [session] = await database.db
    .select({ wallet: chatSessions.wallet })
    .from(chatSessions)
    .where(and(eq(chatSessions.idHash, hash(secret)), gt(chatSessions.expiresAt, sql`now()`)))
  return session?.wallet
}

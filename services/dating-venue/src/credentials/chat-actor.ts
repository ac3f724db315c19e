import { ApiError } from '@agents/service-kit'
import { inArray } from 'drizzle-orm'
import type { Context } from 'hono'
import { getCookie } from 'hono/cookie'
import { getAddress } from 'viem'
import type { VenueDatabase } from '../db/open.ts'
import { owners } from '../db/schema.ts'
import { CHAT_ERRORS } from '../wallet-session/chat-errors.ts'
import { refuseCrossSite } from '../wallet-session/cross-site.ts'
import type { HumanChatSettings } from '../wallet-session/human-chat-settings.ts'
import { CHAT_COOKIE, isAttested, walletOfChatSession } from '../wallet-session/wallet-session.ts'
import type { Actor } from './actors.ts'

export type ChatSessionDeps = {
  database: VenueDatabase
  humanChat: Pick<HumanChatSettings, 'origin'>
}

export const CHAT_ACTOR_ERRORS = {
  noOwner: 'the signed-in wallet owns no profile here: submit a doc first',
} as const

/**
 * The wallet of the request's live chat session, under the chat routes'
 * rules: a state-changing request from another origin is 403 (SameSite=Strict
 * and JSON-only bodies already stop forms; this stops the rest), and a wallet
 * acts only once it attested 18+. Undefined when there is no live session, so
 * the route answers its usual 401.
 */
const chatWallet = async (deps: ChatSessionDeps, c: Context) => {
  const secret = getCookie(c, CHAT_COOKIE)
  if (!secret) return undefined
  refuseCrossSite(c, deps.humanChat.origin())
  const wallet = await walletOfChatSession(deps, secret)
  if (!wallet) return undefined
  if (!(await isAttested(deps, wallet))) throw new ApiError(403, CHAT_ERRORS.attestationRequired)
  return wallet
}

/**
 * The owner the signed-in chat wallet keys (`owners.wallet`), as an owner
 * actor: the human of the chat page acts for it as an owner credential
 * would. Owners store the wallet as it was paid from, lower-case from the
 * chat page, checksummed from some payment paths: both spellings are looked up.
 */
export const chatSessionOwner = async (
  deps: ChatSessionDeps,
  c: Context,
): Promise<Actor | undefined> => {
  const wallet = await chatWallet(deps, c)
  if (!wallet) return undefined
  const spellings = [...new Set([wallet, wallet.toLowerCase(), getAddress(wallet)])]
  const [owner] = await deps.database.db
    .select()
    .from(owners)
    .where(inArray(owners.wallet, spellings))
    .limit(1)
  if (!owner) throw new ApiError(403, CHAT_ACTOR_ERRORS.noOwner)
  return { kind: 'owner', owner }
}

/** The login subject of the signed-in chat wallet: `siwe:<checksummed address>`, as its SIWE token gives. */
export const chatSessionSubject = async (deps: ChatSessionDeps, c: Context) => {
  const wallet = await chatWallet(deps, c)
  return wallet ? `siwe:${getAddress(wallet)}` : undefined
}

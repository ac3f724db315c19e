import { refusal } from '@agents/service-kit'
import { eq } from 'drizzle-orm'
import { owners } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { IDENTITY_ERRORS } from './identity-errors.ts'
import { insertIdentitySession } from './identity-state.ts'

/**
 * Starts the identity check for an owner: a session at the provider with
 * the owner as vendor data. Never fails for the provider: the answer says
 * why there is no URL.
 */
export const startIdentityCheck = async (
  deps: Pick<VenueDeps, 'identity' | 'database'>,
  ownerId: number,
) => {
  if (!deps.identity.client) return { url: null, sessionId: null, note: IDENTITY_ERRORS.noProvider }
  const session = await deps.identity.client.createSession({ vendorData: String(ownerId) })
  if (!session.ok) return { url: null, sessionId: null, note: IDENTITY_ERRORS.retrySession }
  await insertIdentitySession(deps.database.db, { sessionId: session.sessionId, ownerId })
  return { url: session.url, sessionId: session.sessionId, note: null }
}

/**
 * The owner a new identity check is asked for: it must exist (404) and have
 * been claimed by a human (403). Checked before the human's login token, as
 * the spec's rows order them.
 */
export const claimedOwner = async (deps: VenueDeps, ownerId: number) => {
  const [owner] = await deps.database.db.select().from(owners).where(eq(owners.id, ownerId))
  if (!owner) return refusal(404, IDENTITY_ERRORS.noSuchOwner)
  if (owner.tier !== 'profile_claimed' && owner.tier !== 'identity_verified')
    return refusal(403, IDENTITY_ERRORS.notClaimed)
  return { ok: true as const, owner: { id: owner.id, humanSubject: owner.humanSubject } }
}

export type NewIdentitySessionParameters = {
  /** The signed-in human asking (their login subject). */
  subject: string
  /** From `claimedOwner`. */
  owner: { id: number; humanSubject: string | null }
}

/**
 * POST /api/identity/session: a new identity check for an owner, asked by
 * the signed-in human who claimed it (anyone else holding the URL could
 * pass the check in the owner's place).
 */
export const newIdentitySession = async (
  deps: VenueDeps,
  { subject, owner }: NewIdentitySessionParameters,
) => {
  if (subject !== owner.humanSubject) return refusal(403, IDENTITY_ERRORS.notYourOwner)
  const check = await startIdentityCheck(deps, owner.id)
  if (!check.url) return refusal(503, check.note ?? IDENTITY_ERRORS.providerUnavailable)
  return { ok: true as const, url: check.url, sessionId: check.sessionId }
}

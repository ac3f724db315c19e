import { ApiError, parseInput } from '@agents/service-kit'
import { and, eq, gt, isNull, or, sql } from 'drizzle-orm'
import { identitySessions, invites, owners } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { ClaimBody, OwnerRef } from './escalation-schemas.ts'

/** The signed-in human behind a login token, or a 401 `auth verification failed` with the reason. */
export const signedInHuman = async (deps: VenueDeps, authToken: string | undefined) => {
  if (!authToken)
    throw new ApiError(401, 'auth verification failed', { reason: 'login token required' })
  const result = await deps.login.verify(authToken)
  if (!result.ok) throw new ApiError(401, 'auth verification failed', { reason: result.reason })
  return result.subject
}

/** The login token of a human route: `Authorization: Bearer <login token>`. */
export const bearerToken = (authorization: string | undefined) =>
  /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1]

/**
 * Starts the identity check for an owner: a session at the provider with
 * the owner as vendor data. Never throws for the provider: the answer says
 * why there is no URL.
 */
export const startIdentityCheck = async (deps: VenueDeps, ownerId: number) => {
  if (!deps.identity.client)
    return { url: null, sessionId: null, note: 'no identity provider configured' }
  const session = await deps.identity.client.createSession({ vendorData: String(ownerId) })
  if (!session.ok)
    return {
      url: null,
      sessionId: null,
      note: 'identity provider unavailable; retry with POST /api/identity/session',
    }
  await deps.database.db
    .insert(identitySessions)
    .values({ sessionId: session.sessionId, ownerId, status: 'Not Started' })
    .onConflictDoNothing()
  return { url: session.url, sessionId: session.sessionId, note: null }
}

/**
 * POST /api/escalations/claim: the human behind an invite signs in. The
 * login token is verified first (401), then the invite is claimed with one
 * conditional UPDATE (unused and unexpired; two racing claims: one wins,
 * 404 for the other), and the owner is bound to this human, in the same
 * transaction. Then the identity check is started.
 */
export const claimInvite = async (deps: VenueDeps, body: unknown) => {
  const { token, authToken } = parseInput(ClaimBody, body, 'token + authToken required')
  const subject = await signedInHuman(deps, authToken)
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(token))
    throw new ApiError(404, 'invalid or used invite')
  const owner = await deps.database.db
    .transaction(async (tx) => {
      const [claimed] = await tx
        .update(invites)
        .set({ claimedAt: new Date() })
        .where(
          and(
            eq(invites.token, token),
            isNull(invites.claimedAt),
            gt(invites.expiresAt, new Date()),
          ),
        )
        .returning({ ownerId: invites.ownerId })
      if (!claimed) throw new ApiError(404, 'invalid or used invite')
      const [bound] = await tx
        .update(owners)
        .set({
          humanSubject: subject,
          tier: sql`CASE WHEN ${owners.tier} = 'agent_represented' THEN 'profile_claimed' ELSE ${owners.tier} END`,
        })
        .where(
          and(
            eq(owners.id, claimed.ownerId),
            or(isNull(owners.humanSubject), eq(owners.humanSubject, subject)),
          ),
        )
        .returning({ id: owners.id, tier: owners.tier })
      // Rolls the claim back: this profile belongs to another signed-in human.
      if (!bound) throw new ApiError(403, 'this profile was claimed by another sign-in')
      return bound
    })
    .catch((error: unknown) => {
      // The human_subject is unique: one human claims one owner.
      if (
        (error as { cause?: { code?: string }; code?: string })?.cause?.code === '23505' ||
        (error as { code?: string })?.code === '23505'
      )
        throw new ApiError(403, 'this sign-in already claimed another profile')
      throw error
    })
  const check =
    owner.tier === 'identity_verified'
      ? { url: null, note: 'identity already verified' }
      : await startIdentityCheck(deps, owner.id)
  return {
    ok: true as const,
    ownerId: owner.id,
    tier: owner.tier,
    diditUrl: check.url,
    identityNote: check.note,
  }
}

/**
 * POST /api/identity/session: a new identity check for an owner, asked by
 * the signed-in human who claimed it (an addition: anyone else holding the
 * URL could pass the check in the owner's place).
 */
export const newIdentitySession = async (
  deps: VenueDeps,
  body: unknown,
  authorization: string | undefined,
) => {
  const { ownerId } = parseInput(OwnerRef, body, 'ownerId required')
  const [owner] = await deps.database.db.select().from(owners).where(eq(owners.id, ownerId))
  if (!owner) throw new ApiError(404, 'no such owner')
  if (owner.tier !== 'profile_claimed' && owner.tier !== 'identity_verified')
    throw new ApiError(403, 'owner must claim a profile before identity check')
  const subject = await signedInHuman(deps, bearerToken(authorization))
  if (subject !== owner.humanSubject)
    throw new ApiError(403, 'signed-in human did not claim this owner')
  const check = await startIdentityCheck(deps, ownerId)
  if (!check.url) throw new ApiError(503, check.note ?? 'identity provider unavailable')
  return { ok: true as const, url: check.url, sessionId: check.sessionId }
}

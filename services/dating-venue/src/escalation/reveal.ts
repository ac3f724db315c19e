import { ApiError, parseInput } from '@agents/service-kit'
import { and, count, desc, eq, isNotNull } from 'drizzle-orm'
import { couples, events, heartFiles, revealConsents } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { bearerToken, signedInHuman } from './claim.ts'
import { coupleOwners } from './couple-owners.ts'
import { BrokerBody } from './escalation-schemas.ts'

/** What still stands between a couple and the reveal (empty: reveal-ready). */
export const revealMissing = async (deps: VenueDeps, coupleId: number) => {
  const { owners } = await coupleOwners(deps, coupleId, { missing: 'couple/owners not found' })
  const consents = await deps.database.db
    .select({ ownerId: revealConsents.ownerId })
    .from(revealConsents)
    .where(eq(revealConsents.coupleId, coupleId))
  const consented = new Set(consents.map((row) => row.ownerId))
  const missing: string[] = []
  if (owners.length < 2) missing.push('both personas need an owner')
  for (const owner of owners) {
    if (owner.tier !== 'identity_verified') missing.push(`owner ${owner.id}: identity not verified`)
    if (!consented.has(owner.id)) missing.push(`owner ${owner.id}: no contact-reveal consent`)
  }
  return { owners, missing }
}

/** The couple and the owner of it that the signed-in human claimed; 403 for anyone else. */
const humanOfCouple = async (
  deps: VenueDeps,
  coupleId: number,
  authorization: string | undefined,
) => {
  const subject = await signedInHuman(deps, bearerToken(authorization))
  const { couple, owners } = await coupleOwners(deps, coupleId)
  const owner = owners.find((candidate) => candidate.humanSubject === subject)
  if (!owner) throw new ApiError(403, 'the signed-in human is not an owner of this couple')
  if (couple.state !== 'committed' && couple.state !== 'brokered')
    throw new ApiError(409, `couple is ${couple.state}`)
  return { couple, owner, owners }
}

/** POST /api/couples/:id/reveal-consent: the signed-in human (not the agent) agrees to show contact details. */
export const giveRevealConsent = async (
  deps: VenueDeps,
  coupleId: number,
  authorization: string | undefined,
) => {
  const { owner, owners } = await humanOfCouple(deps, coupleId, authorization)
  await deps.database.db
    .insert(revealConsents)
    .values({ coupleId, ownerId: owner.id })
    .onConflictDoNothing()
  const [{ n } = { n: 0 }] = await deps.database.db
    .select({ n: count() })
    .from(revealConsents)
    .where(eq(revealConsents.coupleId, coupleId))
  return { consented: true as const, both: n >= owners.length && owners.length === 2 }
}

/**
 * GET /api/couples/:id/reveal: only when both owners are identity_verified
 * and both consented, the signed-in human of one side sees the other
 * side's contactRef verbatim (their newest doc that has one).
 */
export const reveal = async (
  deps: VenueDeps,
  coupleId: number,
  authorization: string | undefined,
) => {
  const { owner, owners } = await humanOfCouple(deps, coupleId, authorization)
  const { missing } = await revealMissing(deps, coupleId)
  if (missing.length > 0) throw new ApiError(403, 'reveal not ready', { missing })
  const other = owners.find((candidate) => candidate.id !== owner.id)!
  const [file] = await deps.database.db
    .select({ sealed: heartFiles.contactRefSealed })
    .from(heartFiles)
    .where(and(eq(heartFiles.ownerId, other.id), isNotNull(heartFiles.contactRefSealed)))
    .orderBy(desc(heartFiles.id))
    .limit(1)
  await deps.database.db
    .insert(events)
    .values({ kind: 'contact_revealed', detail: { coupleId, to: owner.id } })
  return {
    coupleId,
    ownerId: other.id,
    contactRef: file?.sealed ? deps.sealer.open(file.sealed) : null,
    ...(file?.sealed ? {} : { note: 'the other side left no contact pointer' }),
  }
}

/** GET /api/escalations/:coupleId/status: the owners' tiers and whether the reveal is ready. */
export const escalationStatus = async (deps: VenueDeps, coupleId: number) => {
  const { owners, missing } = await revealMissing(deps, coupleId)
  if (owners.length === 0) throw new ApiError(404, 'couple/owners not found')
  return {
    coupleId,
    owners: owners.map((owner) => ({ id: owner.id, tier: owner.tier })),
    reveal_ready: missing.length === 0,
  }
}

/** POST /admin/actions/broker: the operator moves a committed couple to brokered. */
export const brokerCouple = async (deps: VenueDeps, body: unknown) => {
  const { coupleId } = parseInput(BrokerBody, body, 'coupleId required')
  return deps.database.db.transaction(async (tx) => {
    const [moved] = await tx
      .update(couples)
      .set({ state: 'brokered' })
      .where(and(eq(couples.id, coupleId), eq(couples.state, 'committed')))
      .returning({ id: couples.id })
    if (!moved) {
      const [couple] = await tx
        .select({ state: couples.state })
        .from(couples)
        .where(eq(couples.id, coupleId))
      if (!couple) throw new ApiError(404, 'no such couple')
      throw new ApiError(409, `couple is ${couple.state}, not committed`)
    }
    await tx.insert(events).values({ kind: 'intro_brokered', detail: { coupleId } })
    return { ok: true as const, coupleId }
  })
}

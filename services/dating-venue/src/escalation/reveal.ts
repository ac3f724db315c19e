import { refusal } from '@agents/service-kit'
import { and, count, desc, eq, isNotNull } from 'drizzle-orm'
import { events, heartFiles, revealConsents } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { coupleOwners } from './couple-owners.ts'
import { ESCALATION_ERRORS } from './escalation-errors.ts'

/** What still stands between a couple and the reveal (empty: reveal-ready). */
const revealMissing = async (deps: VenueDeps, coupleId: number) => {
  const found = await coupleOwners(deps, coupleId, {
    missing: ESCALATION_ERRORS.coupleOwnersNotFound,
  })
  if (!found.ok) return found
  const { owners } = found
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
  return { ok: true as const, owners, missing }
}

/** The couple and the owner of it that the signed-in human claimed; 403 for anyone else. */
const humanOfCouple = async (deps: VenueDeps, coupleId: number, subject: string) => {
  const found = await coupleOwners(deps, coupleId)
  if (!found.ok) return found
  const { couple, owners } = found
  const owner = owners.find((candidate) => candidate.humanSubject === subject)
  if (!owner) return refusal(403, ESCALATION_ERRORS.notHumanOfCouple)
  if (couple.state !== 'committed' && couple.state !== 'brokered')
    return refusal(409, ESCALATION_ERRORS.coupleIs(couple.state))
  return { ok: true as const, owner, owners }
}

export type RevealParameters = {
  /** The signed-in human (their verified login subject). */
  subject: string
  coupleId: number
}

/** POST /api/couples/:id/reveal-consent: the signed-in human (not the agent) agrees to show contact details. */
export const giveRevealConsent = async (
  deps: VenueDeps,
  { subject, coupleId }: RevealParameters,
) => {
  const found = await humanOfCouple(deps, coupleId, subject)
  if (!found.ok) return found
  const { owner, owners } = found
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
export const reveal = async (deps: VenueDeps, { subject, coupleId }: RevealParameters) => {
  const found = await humanOfCouple(deps, coupleId, subject)
  if (!found.ok) return found
  const { owner, owners } = found
  const ready = await revealMissing(deps, coupleId)
  if (!ready.ok) return ready
  if (ready.missing.length > 0)
    return refusal(403, ESCALATION_ERRORS.revealNotReady, { missing: ready.missing })
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
    ...(file?.sealed ? {} : { note: ESCALATION_ERRORS.noContact }),
  }
}

/** GET /api/escalations/:coupleId/status: the owners' tiers and whether the reveal is ready. */
export const escalationStatus = async (deps: VenueDeps, coupleId: number) => {
  const ready = await revealMissing(deps, coupleId)
  if (!ready.ok) return ready
  if (ready.owners.length === 0) return refusal(404, ESCALATION_ERRORS.coupleOwnersNotFound)
  return {
    coupleId,
    owners: ready.owners.map((owner) => ({ id: owner.id, tier: owner.tier })),
    reveal_ready: ready.missing.length === 0,
  }
}

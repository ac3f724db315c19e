import { refusal } from '@agents/service-kit'
import { count, eq } from 'drizzle-orm'
import { commitCouple } from '../couples/couple-state.ts'
import { type Actor, ownerIdOf } from '../credentials/actors.ts'
import { introConsents } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { coupleOwners } from './couple-owners.ts'
import { ESCALATION_ERRORS } from './escalation-errors.ts'

export type GiveIntroConsentParameters = { actor: Actor; coupleId: number; ownerId: number }

/**
 * POST /api/couples/:id/intro-consent: the owner (by its credential) agrees
 * that the humans should meet. Idempotent per owner per couple (the
 * consent's key); the second owner's consent commits the couple and
 * records `intro_ready`, once.
 */
export const giveIntroConsent = async (
  deps: VenueDeps,
  { actor, coupleId, ownerId }: GiveIntroConsentParameters,
) => {
  if (ownerIdOf(actor) !== ownerId) return refusal(403, ESCALATION_ERRORS.notThisOwner)
  const found = await coupleOwners(deps, coupleId)
  if (!found.ok) return found
  const { couple, members } = found
  if (!members.some((member) => member.ownerId === ownerId))
    return refusal(403, ESCALATION_ERRORS.ownerNotInCouple)
  if (couple.state !== 'courting' && couple.state !== 'committed')
    return refusal(409, ESCALATION_ERRORS.coupleIs(couple.state))
  return deps.database.db.transaction(async (tx) => {
    await tx.insert(introConsents).values({ coupleId, ownerId }).onConflictDoNothing()
    const [{ n } = { n: 0 }] = await tx
      .select({ n: count() })
      .from(introConsents)
      .where(eq(introConsents.coupleId, coupleId))
    const distinctOwners = new Set(members.map((m) => m.ownerId).filter((id) => id !== null)).size
    const both = n >= 2 || (distinctOwners === 1 && n >= 1)
    if (both) await commitCouple(tx, coupleId)
    return { consented: true as const, both }
  })
}

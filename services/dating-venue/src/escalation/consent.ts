import { ApiError, parseInput } from '@agents/service-kit'
import { and, count, eq, sql } from 'drizzle-orm'
import { authenticate, ownerIdOf } from '../credentials/actors.ts'
import { couples, events, introConsents } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { coupleOwners } from './couple-owners.ts'
import { OwnerRef } from './escalation-schemas.ts'

/**
 * POST /api/couples/:id/intro-consent: the owner (by its credential) agrees
 * that the humans should meet. Idempotent per owner per couple (the
 * consent's key); the second owner's consent commits the couple and
 * records `intro_ready`, once.
 */
export const giveIntroConsent = async (
  deps: VenueDeps,
  coupleId: number,
  body: unknown,
  authorization: string | undefined,
) => {
  const { ownerId } = parseInput(OwnerRef, body, 'ownerId required')
  const actor = await authenticate(deps.database, authorization, 'consenting for an owner')
  if (ownerIdOf(actor) !== ownerId)
    throw new ApiError(403, 'credential does not act for this owner')
  const { couple, members } = await coupleOwners(deps, coupleId)
  if (!members.some((member) => member.ownerId === ownerId))
    throw new ApiError(403, 'owner not in this couple')
  if (couple.state !== 'courting' && couple.state !== 'committed')
    throw new ApiError(409, `couple is ${couple.state}`)
  return deps.database.db.transaction(async (tx) => {
    await tx.insert(introConsents).values({ coupleId, ownerId }).onConflictDoNothing()
    const [{ n } = { n: 0 }] = await tx
      .select({ n: count() })
      .from(introConsents)
      .where(eq(introConsents.coupleId, coupleId))
    const distinctOwners = new Set(members.map((m) => m.ownerId).filter((id) => id !== null)).size
    const both = n >= 2 || (distinctOwners === 1 && n >= 1)
    if (both) {
      const [committed] = await tx
        .update(couples)
        .set({ state: 'committed' })
        .where(and(eq(couples.id, coupleId), eq(couples.state, 'courting')))
        .returning({ id: couples.id })
      if (committed)
        await tx
          .insert(events)
          .values({ kind: 'intro_ready', detail: sql`${JSON.stringify({ coupleId })}::jsonb` })
    }
    return { consented: true as const, both }
  })
}

import { refusal } from '@agents/service-kit'
import { eq, inArray } from 'drizzle-orm'
import { couples, owners, personas } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { ESCALATION_ERRORS } from './escalation-errors.ts'

/**
 * A couple and the owners of its two personas, or a 404 refusal: `no such
 * couple`, or `couple/owners not found` for the routes whose spec rows say so.
 */
export const coupleOwners = async (
  deps: VenueDeps,
  coupleId: number,
  { missing = ESCALATION_ERRORS.noSuchCouple }: { missing?: string } = {},
) => {
  const { db } = deps.database
  const [couple] = await db.select().from(couples).where(eq(couples.id, coupleId))
  if (!couple) return refusal(404, missing)
  const members = await db
    .select({ personaId: personas.id, ownerId: personas.ownerId, model: personas.model })
    .from(personas)
    .where(inArray(personas.id, [couple.personaA, couple.personaB]))
  const ownerIds = [
    ...new Set(members.map((m) => m.ownerId).filter((id): id is number => id !== null)),
  ]
  const rows = ownerIds.length
    ? await db.select().from(owners).where(inArray(owners.id, ownerIds))
    : []
  return { ok: true as const, couple, members, owners: rows }
}

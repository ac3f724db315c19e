import { ApiError } from '@agents/service-kit'
import { eq, inArray } from 'drizzle-orm'
import { coupleIdOf } from '../couples/couples.ts'
import { couples, owners, personas } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'

/** `:coupleId` from a path: a positive integer an id column can hold, else 400 `bad couple id`. */
export const parseCoupleId = coupleIdOf

/**
 * A couple and the owners of its two personas. 404 `no such couple` for an
 * unknown couple; `couple/owners not found` (404) when a persona has no
 * owner, for the routes whose spec rows say so.
 */
export const coupleOwners = async (
  deps: VenueDeps,
  coupleId: number,
  { missing = 'no such couple' }: { missing?: string } = {},
) => {
  const { db } = deps.database
  const [couple] = await db.select().from(couples).where(eq(couples.id, coupleId))
  if (!couple) throw new ApiError(404, missing)
  const members = await db
    .select({ personaId: personas.id, ownerId: personas.ownerId })
    .from(personas)
    .where(inArray(personas.id, [couple.personaA, couple.personaB]))
  const ownerIds = [
    ...new Set(members.map((m) => m.ownerId).filter((id): id is number => id !== null)),
  ]
  const rows = ownerIds.length
    ? await db.select().from(owners).where(inArray(owners.id, ownerIds))
    : []
  return { couple, members, owners: rows }
}

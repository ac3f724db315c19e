import { ApiError } from '@agents/service-kit'
import { preparedOnce } from '@agents/service-kit/db'
import { eq, sql } from 'drizzle-orm'
import type { VenueDatabase } from '../db/open.ts'
import { agentEndpoints, type EndpointRow, type OwnerRow, owners } from '../db/schema.ts'
import { bearerOf, parseCredential, secretMatches } from './credentials.ts'

/** Who a valid credential speaks for. */
export type Actor = { kind: 'owner'; owner: OwnerRow } | { kind: 'agent'; endpoint: EndpointRow }

// Every credentialed request reads one of these: built once, not on every request.
const ownerById = preparedOnce((db: VenueDatabase['db']) =>
  db
    .select()
    .from(owners)
    .where(eq(owners.id, sql.placeholder('id')))
    .prepare('venue_owner_by_id'),
)
const endpointById = preparedOnce((db: VenueDatabase['db']) =>
  db
    .select()
    .from(agentEndpoints)
    .where(eq(agentEndpoints.id, sql.placeholder('id')))
    .prepare('venue_endpoint_by_id'),
)

/**
 * Resolves `Authorization: Bearer <credential>` to its owner or active agent
 * endpoint: missing 401, anything that is not a live credential 403.
 */
export const authenticate = async (
  database: VenueDatabase,
  authorization: string | undefined,
  what: string,
): Promise<Actor> => {
  const parsed = parseCredential(bearerOf(authorization, what))
  if (!parsed) throw new ApiError(403, 'credential not recognised')
  const { db } = database
  if (parsed.kind === 'owner') {
    const [owner] = await ownerById(db).execute({ id: parsed.id })
    if (owner && secretMatches(parsed.secret, owner.credentialHash)) return { kind: 'owner', owner }
  } else {
    const [endpoint] = await endpointById(db).execute({ id: parsed.id })
    if (endpoint?.status === 'active' && secretMatches(parsed.secret, endpoint.credentialHash))
      return { kind: 'agent', endpoint }
  }
  throw new ApiError(403, 'credential not recognised')
}

/** The owner an actor speaks for, if any: the owner itself, or the owner its endpoint is bound to. */
export const ownerIdOf = (actor: Actor) =>
  actor.kind === 'owner' ? actor.owner.id : (actor.endpoint.ownerId ?? undefined)

/** 403 unless the actor speaks for `ownerId`. */
export const requireOwner = (actor: Actor, ownerId: number) => {
  if (ownerIdOf(actor) !== ownerId)
    throw new ApiError(403, 'credential does not act for this owner')
}

/**
 * 403 unless the actor speaks for the persona: the agent endpoint bound to
 * it, or the owner the persona belongs to.
 */
export const requirePersona = (actor: Actor, persona: { id: number; ownerId: number | null }) => {
  if (actor.kind === 'agent' && actor.endpoint.personaId === persona.id) return
  if (persona.ownerId !== null && ownerIdOf(actor) === persona.ownerId && actor.kind === 'owner')
    return
  throw new ApiError(403, 'credential does not act for this persona')
}
